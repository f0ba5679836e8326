import { OttoError, type Env } from "../../core/index.ts";
import type { PrInfo } from "../../pr/index.ts";
import { addTemporaryWorktree, CLEAN_TREE, headSha, pushBranch, refuseUnpushed, runGit, type TreeSnapshot } from "../../workspace/index.ts";

/*
 * The git side of the loop's preflight (preflight.ts): whether otto may push the PR's branch, the
 * target branch and the files the PR changes against it, and otto's own worktree of an untrusted PR.
 */

/**
 * Git facts about pushing: the local branch must be the remote's, neither behind (the reviewers
 * would read stale code) nor ahead (they would review, and otto push, commits that are not the
 * PR's), and a dry-run push must be accepted (credentials, permissions).
 */
export async function pushState(dir: string, remote: string, branch: string, env: Env): Promise<{ canPush: boolean; blocker?: string }> {
  const git = (args: string[]) => runGit(args, { cwd: dir, env });
  const fetch = await git(["fetch", "-q", remote, `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`]);
  if (fetch.exitCode !== 0)
    return { canPush: false, blocker: `git fetch ${remote} ${branch} failed: ${fetch.stderr.trim().split("\n")[0] ?? ""}` };
  const behind = await git(["rev-list", "--count", `HEAD..refs/remotes/${remote}/${branch}`]);
  if (behind.exitCode === 0 && Number(behind.stdout.trim()) > 0) {
    throw new OttoError(
      "loop_branch_behind",
      `The local '${branch}' in ${dir} is ${behind.stdout.trim()} commit(s) behind ${remote}/${branch}: the reviewers would review stale code.`,
      `Run git -C ${dir} pull --ff-only, then run the command again.`,
    );
  }
  await refuseUnpushed({ dir, remote, branch, env });
  const dry = await pushBranch({ dir, remote, branch, dryRun: true }, { env });
  if (dry.exitCode !== 0)
    return { canPush: false, blocker: `git push --dry-run was refused: ${(dry.stderr || dry.stdout).trim().split("\n")[0] ?? ""}` };
  return { canPush: true };
}

/** The target branch fetched, and the files the PR changes against it. */
export async function targetOf(dir: string, remote: string, target: string, env: Env): Promise<{ ref: string; files: string[] }> {
  const ref = await fetchTarget(dir, remote, target, env);
  const diff = await runGit(["diff", "--name-only", `${ref}...HEAD`], { cwd: dir, env });
  return {
    ref,
    files:
      diff.exitCode === 0
        ? diff.stdout
            .split("\n")
            .map((l) => l.trim())
            .filter(Boolean)
        : [],
  };
}

/** The target branch fetched for the diff base: `<remote>/<target>`, or the name alone when it cannot be fetched. */
export async function fetchTarget(dir: string, remote: string, target: string, env: Env): Promise<string> {
  const fetched = await runGit(["fetch", "-q", remote, `+refs/heads/${target}:refs/remotes/${remote}/${target}`], { cwd: dir, env });
  return fetched.exitCode === 0 ? `${remote}/${target}` : target;
}

/**
 * Otto's own worktree of an untrusted PR, whatever the state of the user's checkout: its OpenCode
 * configuration is about to be deleted, which must never happen to the user's files. A fork's
 * branch is not on the remote, so the worktree is of the commit the checkout has. Hands-off:
 * otto adds no worktree to that repository, so the loop does not run.
 */
export async function untrustedTree(
  pr: PrInfo,
  work: { dir: string; remote: string; strategy: string },
  env: Env,
  reason: string,
): Promise<{
  kind: "tree";
  dir: string;
  baseline: TreeSnapshot;
  temporary: true;
  how: string;
  release: () => Promise<string | undefined>;
}> {
  if (work.strategy === "hands-off") {
    throw new OttoError(
      "loop_untrusted_hands_off",
      `PR #${pr.number}: ${reason}, so otto would review it only in a worktree of its own, without the branch's OpenCode configuration; ${work.dir} is hands-off, and otto adds no worktree there.`,
      "Review it with /pr-review (one-shot) from a clone otto may add a temporary worktree to.",
    );
  }
  const at = pr.fork === true ? await headSha(work.dir, { env }) : undefined;
  const worktree = await addTemporaryWorktree({
    repoDir: work.dir,
    remote: work.remote,
    branch: pr.sourceBranch,
    env,
    label: `otto-loop-${pr.number}`,
    ...(at ? { at } : {}),
  });
  const what = at ? `the commit ${at.slice(0, 7)} of ${work.dir}` : `${work.remote}/${pr.sourceBranch}`;
  return {
    kind: "tree",
    dir: worktree.dir,
    baseline: CLEAN_TREE,
    temporary: true,
    how: `in a temporary worktree of ${what} (${reason}; your checkout is left untouched)`,
    release: worktree.release,
  };
}
