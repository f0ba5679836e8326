import { OttoError, type Env } from "../../core/index.ts";
import { runGit } from "../../workspace/index.ts";

/*
 * A CI job's checkout is of the commit the job ran on (the default branch for workflow_run, a
 * detached merge commit for PR builds), not of the PR's branch the flows work on. A clean checkout
 * is moved to the PR's branch as the remote has it; nothing is pushed here.
 */

export async function checkoutPrBranch(input: { dir: string; branch: string; env: Env; remote?: string }): Promise<string> {
  const { dir, branch, env } = input;
  const remote = input.remote ?? "origin";
  const git = (args: string[]) => runGit(args, { cwd: dir, env });
  const current = (await git(["symbolic-ref", "-q", "--short", "HEAD"])).stdout.trim();
  if (current === branch) return `on ${branch} already`;
  const status = await git(["status", "--porcelain", "--untracked-files=no"]);
  if (status.exitCode !== 0)
    throw new OttoError(
      "ci_checkout",
      `${dir} is not a git checkout: ${status.stderr.trim()}`,
      "Run the otto job in the repository's checkout (actions/checkout, or Azure Pipelines' checkout: self).",
    );
  if (status.stdout.trim() !== "")
    throw new OttoError(
      "ci_checkout",
      `The checkout in ${dir} has changes, and otto would have to switch it to the PR's branch ${branch}.`,
      "Run the otto job in a fresh checkout of its own (no build step before it in the same job).",
    );
  const fetched = await git(["fetch", "-q", remote, `refs/heads/${branch}:refs/remotes/${remote}/${branch}`]);
  if (fetched.exitCode !== 0)
    throw new OttoError(
      "ci_checkout",
      `Could not fetch the PR's branch ${branch} from ${remote}: ${fetched.stderr.trim()}`,
      "Give the job's token read access to the repository's contents, and let git reach the remote with the job's token (the credential helper `/otto-pr ci init` writes).",
    );
  const switched = await git(["checkout", "-q", "-B", branch, "--track", `refs/remotes/${remote}/${branch}`]);
  if (switched.exitCode !== 0)
    throw new OttoError(
      "ci_checkout",
      `Could not check out ${branch}: ${switched.stderr.trim()}`,
      "Run the otto job in a fresh checkout of its own.",
    );
  return `checked out ${branch} from ${remote}`;
}
