import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import type { Repo } from "../config/index.ts";
import { assertWorktreeName, renderBranchName } from "./branch-template.ts";
import { realPath, worktreeDirOf } from "./find-repo.ts";
import { gitOutput } from "../workspace/index.ts";
import type { GitEnv } from "../workspace/index.ts";
import { branchExists, currentBranch, listGitWorktrees, readStatus, unpushedCommits } from "../workspace/index.ts";
import { assertPrimaryDir, handsOffError } from "./worktree-add.ts";

export interface RemoveOptions {
  /** Remove despite uncommitted changes; delete a branch despite unpushed commits. */
  force?: boolean;
  /** Also delete the worktree's branch (worktree strategy; the branch strategy always deletes it). */
  deleteBranch?: boolean;
  git?: GitEnv;
}

export interface WorktreeRemoved {
  repo: string;
  /** The repo's primary dir, where its branches live. */
  primary: string;
  strategy: "worktree" | "branch";
  branch: string | undefined;
  /** The worktree removed; undefined for the branch strategy. */
  dir: string | undefined;
  /** Uncommitted changes thrown away by --force (`XY path` lines). */
  discarded: string[];
  branchDeleted: boolean;
  /** Commits of the branch on no remote: lost if it was deleted, the reason it was kept otherwise. */
  unpushed: string[];
  /** Things the user should know (branch kept, registration pruned). */
  notes: string[];
}

const MAX_LISTED = 10;
const listed = (lines: readonly string[]) =>
  [
    ...lines.slice(0, MAX_LISTED).map((l) => `  ${l}`),
    ...(lines.length > MAX_LISTED ? [`  … and ${lines.length - MAX_LISTED} more`] : []),
  ].join("\n");

async function removeLinked(repo: Repo, name: string, options: RemoveOptions, git: GitEnv): Promise<WorktreeRemoved> {
  const primary = repo.primary_dir;
  const dir = path.join(worktreeDirOf(repo), assertWorktreeName(name));
  const worktrees = await listGitWorktrees(primary, git);
  const entry = worktrees.slice(1).find((w) => realPath(w.path) === realPath(dir));
  if (!entry) {
    const why = fs.existsSync(dir) ? `${dir} exists but is not a worktree of ${primary}` : `there is no worktree at ${dir}`;
    throw new OttoError(
      "worktree_not_found",
      `Repo '${repo.name}' has no worktree '${name}': ${why}.`,
      `See the repo's worktrees: /otto-worktree list --repo ${repo.name}`,
    );
  }
  const out: WorktreeRemoved = {
    repo: repo.name,
    primary,
    strategy: "worktree",
    branch: entry.branch,
    dir,
    discarded: [],
    branchDeleted: false,
    unpushed: [],
    notes: [],
  };
  if (!fs.existsSync(dir)) {
    await gitOutput(["worktree", "prune"], { ...git, cwd: primary });
    out.notes.push(`${dir} was already gone; git's record of it was pruned.`);
  } else {
    const status = await readStatus(dir, git);
    if (status.dirty && !options.force) {
      throw new OttoError(
        "worktree_dirty",
        `${dir} has uncommitted changes; nothing was removed:\n${listed(status.changes)}`,
        `Commit or stash them (git -C ${dir} stash -u), or discard them: /otto-worktree remove ${name} --repo ${repo.name} --force`,
      );
    }
    out.discarded = status.changes;
  }
  if (entry.branch !== undefined) out.unpushed = await unpushedCommits(primary, entry.branch, git);
  if (fs.existsSync(dir)) await gitOutput(["worktree", "remove", ...(options.force ? ["--force"] : []), dir], { ...git, cwd: primary });
  if (entry.branch === undefined) return out;
  const count = `${out.unpushed.length} commit${out.unpushed.length === 1 ? "" : "s"} on no remote`;
  if (!options.deleteBranch) {
    out.notes.push(`Branch '${entry.branch}' was kept${out.unpushed.length ? ` (${count})` : ""}; --delete-branch deletes it.`);
  } else if (out.unpushed.length > 0 && !options.force) {
    out.notes.push(
      `Branch '${entry.branch}' was kept: it has ${count}:\n${listed(out.unpushed)}\nPush it (git -C ${primary} push -u origin ${entry.branch}), or delete it anyway with --delete-branch --force.`,
    );
  } else {
    await gitOutput(["branch", "-D", entry.branch], { ...git, cwd: primary });
    out.branchDeleted = true;
  }
  return out;
}

async function removeBranch(repo: Repo, name: string, options: RemoveOptions, git: GitEnv): Promise<WorktreeRemoved> {
  const primary = repo.primary_dir;
  const branch = renderBranchName(repo.branch_template, name);
  if (!(await branchExists(primary, branch, git))) {
    throw new OttoError(
      "branch_not_found",
      `Repo '${repo.name}' has no branch '${branch}'.`,
      `See the repo's branches: /otto-worktree list --repo ${repo.name}`,
    );
  }
  if ((await currentBranch(primary, git)) === branch) {
    throw new OttoError(
      "branch_checked_out",
      `Branch '${branch}' is checked out in ${primary}; nothing was removed.`,
      `Switch to another branch first (git -C ${primary} switch <other-branch>), then run the command again.`,
    );
  }
  const unpushed = await unpushedCommits(primary, branch, git);
  if (unpushed.length > 0 && !options.force) {
    throw new OttoError(
      "branch_unpushed",
      `Branch '${branch}' has ${unpushed.length} commit${unpushed.length === 1 ? "" : "s"} on no remote; nothing was removed:\n${listed(unpushed)}`,
      `Push it first (git -C ${primary} push -u origin ${branch}), or delete it anyway: /otto-worktree remove ${name} --repo ${repo.name} --force`,
    );
  }
  await gitOutput(["branch", "-D", branch], { ...git, cwd: primary });
  return { repo: repo.name, primary, strategy: "branch", branch, dir: undefined, discarded: [], branchDeleted: true, unpushed, notes: [] };
}

/**
 * `/otto-worktree remove <name>`: worktree strategy removes `<worktree_dir>/<name>` (and its branch
 * with deleteBranch); branch strategy deletes the branch; hands-off refuses. Uncommitted changes
 * and unpushed commits stop it unless `force`; whatever --force throws away is reported.
 */
export async function removeWorktree(repo: Repo, name: string, options: RemoveOptions = {}): Promise<WorktreeRemoved> {
  const git = options.git ?? {};
  if (repo.git_strategy === "hands-off") {
    throw handsOffError(
      repo,
      "remove worktrees or branches",
      `Remove it yourself: git -C ${repo.primary_dir} worktree remove <path>, or git -C ${repo.primary_dir} branch -d <branch>.`,
    );
  }
  await assertPrimaryDir(repo, git);
  return repo.git_strategy === "branch" ? removeBranch(repo, name, options, git) : removeLinked(repo, name, options, git);
}
