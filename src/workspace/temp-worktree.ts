import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gitOutput } from "./git-errors.ts";
import { runGit } from "./git.ts";
import { forgetTreeLayout, markOwnWorktree } from "./tree-layout.ts";
import { forgetSecretFiles } from "../sandbox/index.ts";
import { exists, type Env } from "../core/index.ts";

/*
 * A checkout of a PR branch that is otto's alone: `git worktree add --detach` of the fetched
 * remote branch in a temporary folder. The PR flows use it when the PR's own checkout holds
 * uncommitted or untracked work of the user's, so that work stays exactly as it was. No local
 * branch is created or moved (the user's branch may be checked out elsewhere); the flows push
 * `HEAD:refs/heads/<branch>`. Removed afterwards whatever happens (`worktree remove --force`,
 * the folder, `worktree prune`).
 */

export interface TemporaryWorktree {
  dir: string;
  /** Removes the worktree and its folder. Never throws; says what it could not remove. */
  release: () => Promise<string | undefined>;
}

export interface TemporaryWorktreeInput {
  /** A checkout of the repository (its worktrees share the object store and refs). */
  repoDir: string;
  remote: string;
  branch: string;
  env: Env;
  /** Folder name prefix, e.g. "otto-fix-12". */
  label: string;
  /** Parent of the temporary folder (default: the OS temp dir). */
  tempRoot?: string;
  /**
   * A commit to check out instead of the fetched remote branch: the checkout's own HEAD when the
   * branch is not on `remote` (a fork's branch the user checked out).
   */
  at?: string;
}

export async function addTemporaryWorktree(input: TemporaryWorktreeInput): Promise<TemporaryWorktree> {
  const git = { env: input.env };
  const ref = input.at ?? `refs/remotes/${input.remote}/${input.branch}`;
  // Not forced: a branch rewritten on the server leaves the old tracking ref, and the push's rebase deals with it.
  if (input.at === undefined)
    await gitOutput(["fetch", "-q", input.remote, `+refs/heads/${input.branch}:${ref}`], { ...git, cwd: input.repoDir });
  const parent = await fs.mkdtemp(path.join(input.tempRoot ?? os.tmpdir(), `${input.label}-`));
  const dir = path.join(parent, `wt-${randomUUID().slice(0, 8)}`);
  const release = async (): Promise<string | undefined> => {
    // Before the folder goes: what the sandbox hid there is keyed by its real path.
    forgetSecretFiles(dir);
    const problems: string[] = [];
    const removed = await runGit(["worktree", "remove", "--force", dir], { ...git, cwd: input.repoDir }).catch((error: unknown) => ({
      exitCode: -1,
      stdout: "",
      stderr: String(error),
    }));
    if (removed.exitCode !== 0 && (await exists(dir))) problems.push(`git worktree remove: ${removed.stderr.trim()}`);
    await fs.rm(parent, { recursive: true, force: true }).catch((error: unknown) => problems.push(String(error)));
    await runGit(["worktree", "prune"], { ...git, cwd: input.repoDir }).catch(() => undefined);
    forgetTreeLayout(dir);
    return problems.length > 0 ? `could not remove the temporary worktree ${dir}: ${problems.join("; ")}` : undefined;
  };
  try {
    await gitOutput(["worktree", "add", "--detach", dir, ref], { ...git, cwd: input.repoDir });
    markOwnWorktree(dir);
  } catch (error) {
    await release();
    throw error;
  }
  return { dir, release };
}
