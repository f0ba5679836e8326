import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Repo } from "../config/index.ts";
import { OttoError, type Env, type Logger } from "../core/index.ts";
import type { PrInfo } from "../pr/index.ts";
import { describeCommand, gitOutput, mapPrToWorkdir, repoUrlOfPr, runGit, type GitEnv } from "../repo/index.ts";

/*
 * Where the review runs: the PR's source branch checked out locally, so the reviewer reads whole
 * files, not a diff (design, "PR Review Command"). A tracked repo uses its git_strategy (worktree,
 * branch, hands-off: see src/repo/map-pr.ts); a clone found in the current directory gets a
 * TEMPORARY detached worktree of `<remote>/<branch>`, removed afterwards whatever happens, so the
 * user's own checkout is never touched.
 */

export interface ReviewCheckout {
  dir: string;
  /** The remote the PR's repository is on (`origin` usually); the diff base is `<remote>/<target>`. */
  remote: string;
  /** A temporary worktree that release() removes. */
  temporary: boolean;
  /** How the checkout was made, for the report. */
  how: string;
  /** Removes a temporary worktree (and its directory); does nothing otherwise. Never throws. */
  release(): Promise<void>;
}

export interface CheckoutInput {
  pr: PrInfo;
  repos: readonly Repo[];
  /** Where the command runs. */
  cwd: string;
  env: Env;
  log: Logger;
  /** Parent of temporary worktrees (default: the OS temp dir). */
  tempRoot?: string;
}

async function fetchBranch(dir: string, remote: string, branch: string, git: GitEnv): Promise<void> {
  const args = ["fetch", "--no-tags", remote, `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`];
  const result = await runGit(args, { ...git, cwd: dir });
  if (result.exitCode === 0) return;
  if (/couldn't find remote ref/i.test(result.stderr)) {
    throw new OttoError("pr_branch_missing", `Branch '${branch}' does not exist on ${remote}.`, "Check the PR's branches; the source branch may have been deleted after a merge.");
  }
  throw new OttoError("git_failed", `\`${describeCommand(args, dir)}\` failed: ${result.stderr.trim() || `exit ${result.exitCode}`}`, `Run it yourself to see why: ${describeCommand(args, dir)}`);
}

async function temporaryWorktree(input: CheckoutInput, root: string, remote: string, git: GitEnv): Promise<ReviewCheckout> {
  await fetchBranch(root, remote, input.pr.sourceBranch, git);
  const parent = await fs.mkdtemp(path.join(input.tempRoot ?? os.tmpdir(), `otto-review-${input.pr.number}-`));
  const dir = path.join(parent, `pr-${input.pr.number}-${randomUUID().slice(0, 8)}`);
  const release = async (): Promise<void> => {
    try {
      // --force: the reviewer is read-only, but a tool may still have left an untracked file.
      const removed = await runGit(["worktree", "remove", "--force", dir], { ...git, cwd: root });
      if (removed.exitCode !== 0) input.log.log("warn", "could not remove the review worktree", { dir, stderr: removed.stderr.trim() });
      await fs.rm(parent, { recursive: true, force: true });
      await runGit(["worktree", "prune"], { ...git, cwd: root });
    } catch (error) {
      input.log.log("warn", "could not clean up the review worktree", { dir, error: error instanceof Error ? error.message : String(error) });
    }
  };
  try {
    // Detached: no local branch is created or moved, whatever the user has checked out.
    await gitOutput(["worktree", "add", "--detach", dir, `refs/remotes/${remote}/${input.pr.sourceBranch}`], { ...git, cwd: root });
  } catch (error) {
    await release();
    throw error;
  }
  return { dir, remote, temporary: true, how: `temporary worktree of ${remote}/${input.pr.sourceBranch} in ${dir}`, release };
}

/** Checks out the PR's source branch and fetches its target, so `git diff <remote>/<target>...HEAD` is the PR's change. */
export async function checkoutPr(input: CheckoutInput): Promise<ReviewCheckout> {
  if (input.pr.fork === true) {
    // Its branch is not on the repository's remote, so no clone of it can check it out by name.
    throw new OttoError(
      "pr_review_fork",
      `PR #${input.pr.number}'s branch '${input.pr.sourceBranch}' is in a fork${input.pr.headRepo ? ` (${input.pr.headRepo})` : ""}, not in ${input.pr.repo}; otto reviews branches of the repository itself.`,
      "/pr-review does not review PRs from forks yet; ask the author to push the branch to the repository itself.",
    );
  }
  const git: GitEnv = { env: input.env };
  const mapped = await mapPrToWorkdir({ repoUrl: repoUrlOfPr(input.pr.url), branch: input.pr.sourceBranch, config: { repos: input.repos }, cwd: input.cwd, git });
  const checkout =
    mapped.strategy === "cwd"
      ? await temporaryWorktree(input, mapped.dir, mapped.remote, git)
      : { dir: mapped.dir, remote: mapped.remote, temporary: false, how: `${mapped.strategy} strategy of repo '${mapped.repo?.name ?? "?"}' in ${mapped.dir}`, release: async () => {} };
  try {
    await fetchBranch(checkout.dir, checkout.remote, input.pr.targetBranch, git);
  } catch (error) {
    await checkout.release();
    throw error;
  }
  return checkout;
}
