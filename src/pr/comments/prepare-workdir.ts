import { OttoError, type Env } from "../../core/index.ts";
import type { Repo } from "../../config/index.ts";
import { isDirty, readStatus, restoreChanges, runGit } from "../../workspace/index.ts";
import { mapPrToWorkdir, repoUrlOfPr } from "../../repo/index.ts";
import { refuseUnpushed, snapshotGitControl, type GitControlSnapshot, type TreeSnapshot } from "../../workspace/index.ts";
import { openPrTree, snapshotPrTree, type PrTreeInput } from "../pr-tree.ts";
import type { PrInfo } from "../types.ts";

/*
 * The PR's working tree, ready for a session: on the PR's branch, clean (so whatever is there
 * afterwards is the session's work and nothing of the user's gets committed or discarded), and
 * fast-forwarded to the remote branch when it can be.
 */

export interface PrWork {
  dir: string;
  /** The git remote that holds the PR's branch. */
  remote: string;
  branch: string;
  /** How the PR's checkout was found (hands-off: otto never adds a worktree there). */
  strategy?: PrTreeInput["strategy"];
  /** The tree before the sessions ran (clean): a fix commits only what changed since. */
  baseline?: TreeSnapshot;
  /** otto's temporary worktree of the PR branch (detached HEAD), used because the checkout is dirty. */
  detached?: boolean;
  /** The tree's git configuration and hooks once ready, before any session: commitAndPush compares. */
  gitControl?: GitControlSnapshot;
}

export async function prepareWorkdir(input: { pr: PrInfo; repos: readonly Repo[]; cwd: string; env: Env }): Promise<PrWork> {
  return readyWorkdir(await locateWorkdir(input), input.env);
}

/** The PR's working tree on the PR's branch, not yet touched (the caller takes its work lock first). */
export async function locateWorkdir(input: { pr: PrInfo; repos: readonly Repo[]; cwd: string; env: Env }): Promise<PrWork> {
  const { pr, env } = input;
  const workdir = await mapPrToWorkdir({
    repoUrl: repoUrlOfPr(pr.url),
    branch: pr.sourceBranch,
    config: { repos: input.repos },
    cwd: input.cwd,
    git: { env },
  });
  if (!workdir.onBranch) {
    throw new OttoError(
      "pr_branch_not_checked_out",
      `${workdir.dir} is a clone of ${pr.repo} but does not have the PR's branch '${pr.sourceBranch}' checked out, so otto cannot answer comments with changes there.`,
      `git -C ${workdir.dir} switch ${pr.sourceBranch}, or track the repo with /otto-repo add (worktree strategy) so otto uses a worktree of its own.`,
    );
  }
  return { dir: workdir.dir, remote: workdir.remote, branch: pr.sourceBranch, strategy: workdir.strategy };
}

/**
 * Where the answers are made: the checkout when it is clean, else a temporary worktree of the PR
 * branch (the user's uncommitted work is never touched); a dirty hands-off checkout waits for the
 * person (worktree_dirty, retried without counting). `release` removes a temporary worktree.
 */
export async function openWorkTree(
  located: PrWork,
  env: Env,
  label: string,
): Promise<{ work: PrWork; release: () => Promise<string | undefined> }> {
  const tree = await openPrTree({
    dir: located.dir,
    remote: located.remote,
    strategy: located.strategy ?? "cwd",
    branch: located.branch,
    env,
    label,
  });
  if (tree.kind === "deferred") {
    throw new OttoError(
      "worktree_dirty",
      `The PR's checkout ${located.dir} (hands-off) has uncommitted changes (${tree.changes.slice(0, 5).join(", ")}); otto did not touch it.`,
      `Commit or stash them (git -C ${located.dir} stash -u); the next cycle answers the comments.`,
    );
  }
  const work = { ...located, dir: tree.dir, detached: tree.temporary };
  try {
    return { work: await readyWorkdir(work, env), release: tree.release };
  } catch (error) {
    await tree.release();
    throw error;
  }
}

/** Checks the located tree is clean and fast-forwards it to the remote branch when it can. */
export async function readyWorkdir(workdir: PrWork, env: Env): Promise<PrWork> {
  const git = { env };
  const pr = { sourceBranch: workdir.branch };
  // openWorkTree hands over a clean tree; a dirty one here means someone started editing meanwhile.
  if (await isDirty(workdir.dir, git)) {
    const status = await readStatus(workdir.dir, git);
    throw new OttoError(
      "worktree_dirty",
      `The PR's working tree ${workdir.dir} has uncommitted changes (${status.changes.slice(0, 5).join(", ")}); otto does not mix its fixes with them.`,
      `Commit or stash them (git -C ${workdir.dir} stash -u); the next cycle answers the comments.`,
    );
  }
  // Best effort: a branch that moved is also handled at push time (rebase), but the model should read current code.
  const fetched = await runGit(
    ["fetch", "-q", workdir.remote, `+refs/heads/${pr.sourceBranch}:refs/remotes/${workdir.remote}/${pr.sourceBranch}`],
    { ...git, cwd: workdir.dir },
  );
  if (fetched.exitCode === 0)
    await runGit(["merge", "-q", "--ff-only", `refs/remotes/${workdir.remote}/${pr.sourceBranch}`], { ...git, cwd: workdir.dir });
  // Unpushed local commits would be pushed with the first AGREE fix, and reset away by a discarded answer.
  await refuseUnpushed({ dir: workdir.dir, remote: workdir.remote, branch: pr.sourceBranch, env });
  // After the fast-forward, before any session: what git ignores now is the user's, never committed.
  return { ...workdir, baseline: await snapshotPrTree(workdir.dir, env), gitControl: await snapshotGitControl(workdir.dir, { env }) };
}

/**
 * Drops what a session did since `baseline` (the tree before it, readyWorkdir's snapshot) and puts
 * HEAD back at `startHead`: its edits, the files it made, and any commit it made against its
 * instructions, which the next AGREE would otherwise push. Nothing else is touched: no
 * `reset --hard`, no `clean`; a file of the user's (untracked, ignored) stays byte for byte.
 */
export async function discardChanges(dir: string, env: Env, startHead: string, baseline: TreeSnapshot): Promise<boolean> {
  return restoreChanges((args, options) => runGit(args, { ...options, env }), dir, { startHead, baseline });
}
