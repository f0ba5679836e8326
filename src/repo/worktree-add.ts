import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import type { Repo } from "../config/index.ts";
import { renderBranchName } from "./branch-template.ts";
import { worktreeDirOf } from "./find-repo.ts";
import { gitOutput } from "../workspace/index.ts";
import type { GitEnv } from "../workspace/index.ts";
import { branchExists, currentBranch, headSha, repoRoot } from "../workspace/index.ts";

export interface WorktreeAdded {
  repo: string;
  strategy: "worktree" | "branch";
  name: string;
  branch: string;
  /** The worktree (worktree strategy) or the primary dir (branch strategy). */
  dir: string;
  /** What the new branch starts from, e.g. "main at 1a2b3c4"; undefined when an existing branch was used. */
  base: string | undefined;
  /** The git command otto ran. */
  command: string;
}

/** The primary dir must be a clone; everything else depends on it. */
export async function assertPrimaryDir(repo: Repo, git: GitEnv): Promise<void> {
  if ((await repoRoot(repo.primary_dir, git)) === undefined) {
    const why = fs.existsSync(repo.primary_dir) ? "is not a git repository" : "does not exist";
    throw new OttoError(
      "repo_dir_missing",
      `The primary dir of repo '${repo.name}', ${repo.primary_dir}, ${why}.`,
      "Fix primary_dir in the config (/otto-repo list shows it), or remove the repo: /otto-repo remove " + repo.name,
    );
  }
}

export function handsOffError(repo: Repo, action: string, fix: string): OttoError {
  return new OttoError("repo_hands_off", `Repo '${repo.name}' uses the hands-off strategy: otto does not ${action}.`, fix);
}

async function describeBase(dir: string, git: GitEnv): Promise<string> {
  const [branch, sha] = await Promise.all([currentBranch(dir, git), headSha(dir, git)]);
  const short = sha?.slice(0, 7) ?? "(no commits)";
  return branch ? `${branch} at ${short}` : `detached HEAD at ${short}`;
}

/**
 * `/otto-worktree add <name>` by the repo's strategy (design, "Worktree Commands"):
 * worktree: `git worktree add <worktree_dir>/<name> -b <branch>`; branch: `git checkout -b
 * <branch>` in primary_dir; hands-off: refused.
 */
export async function addWorktree(repo: Repo, name: string, git: GitEnv = {}): Promise<WorktreeAdded> {
  const branch = renderBranchName(repo.branch_template, name);
  if (repo.git_strategy === "hands-off") {
    throw handsOffError(
      repo,
      "create worktrees or branches",
      `Create it yourself (git -C ${repo.primary_dir} switch -c ${branch}), or change the repo's git_strategy to worktree or branch.`,
    );
  }
  await assertPrimaryDir(repo, git);
  const primary = repo.primary_dir;
  const exists = await branchExists(primary, branch, git);
  const base = exists ? undefined : await describeBase(primary, git);
  if (repo.git_strategy === "branch") {
    if (exists) {
      throw new OttoError(
        "branch_exists",
        `Branch '${branch}' already exists in ${primary}.`,
        `Switch to it yourself (git -C ${primary} checkout ${branch}), or pick another name.`,
      );
    }
    const args = ["checkout", "-b", branch];
    await gitOutput(args, { ...git, cwd: primary });
    return { repo: repo.name, strategy: "branch", name, branch, dir: primary, base, command: `git ${args.join(" ")}` };
  }
  const dir = path.join(worktreeDirOf(repo), name);
  if (fs.existsSync(dir)) {
    throw new OttoError(
      "worktree_exists",
      `${dir} already exists.`,
      `Use it as it is, remove it first (/otto-worktree remove ${name} --repo ${repo.name}), or pick another name.`,
    );
  }
  // An existing branch (from an earlier worktree, or fetched) is checked out rather than recreated.
  const args = exists ? ["worktree", "add", dir, branch] : ["worktree", "add", dir, "-b", branch];
  await gitOutput(args, { ...git, cwd: primary });
  return { repo: repo.name, strategy: "worktree", name, branch, dir, base, command: `git ${args.join(" ")}` };
}
