import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Repo } from "../config/index.ts";
import { OttoError, type Env, type Logger } from "../core/index.ts";
import type { PrInfo } from "../pr/index.ts";
import { describeCommand, fetchBranch, gitOutput, normalizeRemoteUrl, repoRoot, runGit, type GitEnv } from "../workspace/index.ts";
import { mapPrToWorkdir, remoteKeys, repoUrlOfPr } from "../repo/index.ts";

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

async function temporaryWorktree(
  input: CheckoutInput,
  root: string,
  remote: string,
  git: GitEnv,
  head?: { ref: string; label: string },
): Promise<ReviewCheckout> {
  const ref = head?.ref ?? `refs/remotes/${remote}/${input.pr.sourceBranch}`;
  if (!head) await fetchBranch(root, remote, input.pr.sourceBranch, { git, tags: false });
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
      input.log.log("warn", "could not clean up the review worktree", {
        dir,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  try {
    // Detached: no local branch is created or moved, whatever the user has checked out.
    await gitOutput(["worktree", "add", "--detach", dir, ref], { ...git, cwd: root });
  } catch (error) {
    await release();
    throw error;
  }
  return {
    dir,
    remote,
    temporary: true,
    how: `temporary worktree of ${head?.label ?? `${remote}/${input.pr.sourceBranch}`} in ${dir}`,
    release,
  };
}

/** Checks out the PR's source branch and fetches its target, so `git diff <remote>/<target>...HEAD` is the PR's change. */
export async function checkoutPr(input: CheckoutInput): Promise<ReviewCheckout> {
  if (input.pr.fork === true) return forkCheckout(input);
  const git: GitEnv = { env: input.env };
  const mapped = await mapPrToWorkdir({
    repoUrl: repoUrlOfPr(input.pr.url),
    branch: input.pr.sourceBranch,
    config: { repos: input.repos },
    cwd: input.cwd,
    git,
  });
  const checkout =
    mapped.strategy === "cwd"
      ? await temporaryWorktree(input, mapped.dir, mapped.remote, git)
      : {
          dir: mapped.dir,
          remote: mapped.remote,
          temporary: false,
          how: `${mapped.strategy} strategy of repo '${mapped.repo?.name ?? "?"}' in ${mapped.dir}`,
          release: async () => {},
        };
  try {
    await fetchBranch(checkout.dir, checkout.remote, input.pr.targetBranch, { git, tags: false });
  } catch (error) {
    await checkout.release();
    throw error;
  }
  return checkout;
}

/** The clone of the PR's repository: a tracked repo's primary dir, else the current directory's repository. */
async function findClone(input: CheckoutInput, git: GitEnv): Promise<{ dir: string; remote: string } | undefined> {
  const key = normalizeRemoteUrl(repoUrlOfPr(input.pr.url));
  const roots = [...input.repos.map((r) => r.primary_dir), await repoRoot(input.cwd, git)];
  for (const dir of roots) {
    if (dir === undefined) continue;
    const match = (await remoteKeys(dir, git)).find((k) => k.key === key);
    if (match) return { dir, remote: match.remote };
  }
  return undefined;
}

/**
 * A fork's branch is not on the repository's remote, but GitHub keeps every PR's head there as
 * `refs/pull/<n>/head`: fetched into a ref of otto's own and reviewed in a temporary detached
 * worktree, whatever the repo's strategy (no local branch is made for someone else's fork).
 */
async function forkCheckout(input: CheckoutInput): Promise<ReviewCheckout> {
  const { pr } = input;
  const from = `'${pr.sourceBranch}' of ${pr.headRepo ?? "a fork"}`;
  if (pr.provider !== "github") {
    throw new OttoError(
      "pr_review_fork",
      `PR ${pr.number}'s branch ${from} is not in ${pr.repo}; otto reviews Azure DevOps PRs from branches of the repository itself.`,
      "Ask the author to push the branch to the repository itself, or review it in the web UI.",
    );
  }
  const git: GitEnv = { env: input.env };
  const clone = await findClone(input, git);
  if (!clone) {
    throw new OttoError(
      "repo_not_found",
      `Cannot find a local clone of ${pr.repo} for PR #${pr.number}.`,
      "Run /pr-review inside your clone of it, or add it with /otto-repo add (otto never clones).",
    );
  }
  const ref = `refs/otto/pull/${pr.number}/head`;
  const args = ["fetch", "--no-tags", clone.remote, `+refs/pull/${pr.number}/head:${ref}`];
  const fetched = await runGit(args, { ...git, cwd: clone.dir });
  if (fetched.exitCode !== 0) {
    throw new OttoError(
      "git_failed",
      `PR #${pr.number} is from a fork (${from}) and \`${describeCommand(args, clone.dir)}\` failed: ${fetched.stderr.trim() || `exit ${fetched.exitCode}`}`,
      `Run it yourself to see why: ${describeCommand(args, clone.dir)}`,
    );
  }
  const worktree = await temporaryWorktree(input, clone.dir, clone.remote, git, {
    ref,
    label: `PR #${pr.number}'s head (refs/pull/${pr.number}/head, from ${pr.headRepo ?? "a fork"})`,
  });
  // Nothing of the review stays in the user's clone: the fetched ref goes with the worktree.
  const checkout: ReviewCheckout = {
    ...worktree,
    release: async () => {
      await worktree.release();
      await runGit(["update-ref", "-d", ref], { ...git, cwd: clone.dir });
    },
  };
  try {
    await fetchBranch(checkout.dir, checkout.remote, pr.targetBranch, { git, tags: false });
  } catch (error) {
    await checkout.release();
    throw error;
  }
  return checkout;
}
