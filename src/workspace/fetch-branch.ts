import { OttoError } from "../core/index.ts";
import { gitFailure } from "./git-errors.ts";
import { describeCommand, runGit, type GitEnv } from "./git.ts";

export interface FetchBranchOptions {
  git?: GitEnv;
  /** False: `--no-tags` (a review needs the branch, not the project's tags). */
  tags?: boolean;
  /** How the remote is named when the branch is missing, e.g. `origin (https://…)`; default its name. */
  remoteLabel?: string;
  /** Told the command before it runs, for a caller that lists what it ran. */
  onCommand?: (command: string) => void;
}

/**
 * Refreshes `refs/remotes/<remote>/<branch>` from the remote (forced: the remote-tracking ref
 * follows the remote, even after a force-push). A branch the remote lacks is `pr_branch_missing`.
 */
export async function fetchBranch(dir: string, remote: string, branch: string, options: FetchBranchOptions = {}): Promise<void> {
  const args = [
    "fetch",
    ...(options.tags === false ? ["--no-tags"] : []),
    remote,
    `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`,
  ];
  options.onCommand?.(describeCommand(args, dir));
  const result = await runGit(args, { ...options.git, cwd: dir });
  if (result.exitCode === 0) return;
  if (/couldn't find remote ref/i.test(result.stderr)) {
    throw new OttoError(
      "pr_branch_missing",
      `Branch '${branch}' does not exist on ${options.remoteLabel ?? remote}.`,
      "Check the PR's source branch; it may have been deleted after a merge.",
    );
  }
  throw gitFailure(args, dir, result);
}
