import { OttoError } from "../../core/index.ts";
import { defaultBranch, gitOutput, pushBranch, readStatus, refExists, repoRoot, runGit, type GitEnv } from "../../workspace/index.ts";

/*
 * What `/otto-pr create` checks and pushes before it asks a forge for anything: a feature branch
 * with commits the base lacks, not behind its remote, pushed to origin without force.
 */

export interface PreparedBranch {
  root: string;
  branch: string;
  base: string;
  /** The commit pushed (HEAD). */
  head: string;
  /** The commits ahead of the base, oldest first: `sha subject`. */
  commits: string[];
  /** What the push did: "pushed 3 commits", "already on origin". */
  pushed: string;
  /** Uncommitted changes left out of the PR (named so the user is not surprised). */
  uncommitted: string[];
}

const count = async (range: string, root: string, git: GitEnv): Promise<number> =>
  Number((await gitOutput(["rev-list", "--count", range], { ...git, cwd: root })).trim());

/** Checks the branch of `directory` against `origin/<base>` and pushes it to origin; throws OttoError with the reason and the next step. */
export async function prepareBranch(directory: string, options: { base?: string; git?: GitEnv } = {}): Promise<PreparedBranch> {
  const git = options.git ?? {};
  const root = await repoRoot(directory, git);
  if (!root)
    throw new OttoError(
      "pr_create_no_repo",
      `${directory} is not inside a git repository.`,
      "Run /otto-pr create in a clone of the repository.",
    );
  const status = await readStatus(root, git);
  const branch = status.branch;
  if (!branch)
    throw new OttoError(
      "pr_create_detached",
      "HEAD is detached: a PR needs a branch.",
      "Create one here with `git switch -c <name>`, then run /otto-pr create again.",
    );
  const fetched = await runGit(["fetch", "--quiet", "origin"], { ...git, cwd: root });
  if (fetched.exitCode !== 0) {
    throw new OttoError(
      "pr_create_fetch",
      `git fetch origin failed: ${(fetched.stderr || fetched.stdout).trim().split("\n")[0] ?? ""}`,
      "Check that the origin remote is reachable (`git fetch origin`), then run /otto-pr create again.",
    );
  }
  const main = await defaultBranch(root, git);
  const base = options.base ?? main;
  if (!base)
    throw new OttoError(
      "pr_create_no_base",
      "otto cannot tell the repository's default branch.",
      "Pass the branch the PR should merge into: /otto-pr create --base <branch>.",
    );
  if (branch === main || branch === base) {
    throw new OttoError(
      "pr_create_default_branch",
      `You are on ${branch}, ${branch === main ? "the repository's default branch" : "the PR's base"}: a PR needs a branch of its own.`,
      "Move your commits to a branch (`git switch -c <name>`), or let a run make one (/otto-spec execute creates the spec's branch), then run /otto-pr create again.",
    );
  }
  if (!(await refExists(root, `refs/remotes/origin/${base}`, git))) {
    throw new OttoError("pr_create_no_base", `origin has no branch ${base}.`, "Pass an existing branch with --base <branch>.");
  }
  const ahead = await count(`origin/${base}..HEAD`, root, git);
  if (ahead === 0)
    throw new OttoError(
      "pr_create_nothing",
      `${branch} has no commits that origin/${base} lacks: there is nothing to review.`,
      "Commit your work on the branch first, then run /otto-pr create again.",
    );
  const remote = `refs/remotes/origin/${branch}`;
  const onRemote = await refExists(root, remote, git);
  if (onRemote) {
    const behind = await count(`HEAD..origin/${branch}`, root, git);
    if (behind > 0) {
      throw new OttoError(
        "pr_create_behind",
        `${branch} is ${behind} commit${behind === 1 ? "" : "s"} behind origin/${branch}: pushing would need force, which otto never uses.`,
        `Bring them in first (\`git pull --rebase origin ${branch}\`), then run /otto-pr create again.`,
      );
    }
  }
  const unpushed = onRemote ? await count(`origin/${branch}..HEAD`, root, git) : ahead;
  let pushed = `${branch} was already on origin`;
  if (unpushed > 0) {
    // Never forced: a rejection means the remote moved since the fetch, and the user decides.
    // Through workspace's one push (pushBranch), not commitAndPush: that one commits a session's
    // changes and rebases when rejected; here the user's own commits go up as they are, the branch
    // may be new on origin (--set-upstream), and a rejection stops for the user.
    const push = await pushBranch({ dir: root, remote: "origin", branch, from: `refs/heads/${branch}`, setUpstream: true }, git);
    if (push.exitCode !== 0) {
      throw new OttoError(
        "pr_create_push",
        `git push origin ${branch} was refused: ${(push.stderr || push.stdout).trim().split("\n").slice(-2).join(" ")}`,
        `Fetch and integrate origin/${branch} (\`git pull --rebase\`), then run /otto-pr create again.`,
      );
    }
    pushed = `pushed ${unpushed} commit${unpushed === 1 ? "" : "s"} to origin/${branch}`;
  }
  const head = (await gitOutput(["rev-parse", "HEAD"], { ...git, cwd: root })).trim();
  const commits = (await gitOutput(["log", "--reverse", "--format=%h %s", `origin/${base}..HEAD`], { ...git, cwd: root }))
    .split("\n")
    .filter(Boolean);
  return { root, branch, base, head, commits, pushed, uncommitted: status.changes };
}
