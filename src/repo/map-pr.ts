import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import type { Repo } from "../config/index.ts";
import { worktreeNameFor } from "./branch-template.ts";
import { realPath, remoteKeys, worktreeDirOf } from "./find-repo.ts";
import { fetchBranch, gitOutput } from "../workspace/index.ts";
import { describeCommand, type GitEnv } from "../workspace/index.ts";
import { branchExists, currentBranch, listGitWorktrees, readStatus, refExists, repoRoot } from "../workspace/index.ts";
import { normalizeRemoteUrl } from "../workspace/index.ts";

export interface MapPrInput {
  /** The PR's repository, in any URL form (https, ssh, scp-like; GitHub or Azure DevOps). */
  repoUrl: string;
  /** The PR's source branch. */
  branch: string;
  config: { repos: readonly Repo[] };
  /** Where the command runs; used when no tracked repo matches. */
  cwd: string;
  git?: GitEnv;
}

export interface PrWorkdir {
  /** Where to work on the PR. */
  dir: string;
  /** The tracked repo; undefined when the current directory matched instead. */
  repo: Repo | undefined;
  strategy: Repo["git_strategy"] | "cwd";
  /** The git remote whose URL matched. */
  remote: string;
  /** This call created the worktree. */
  created: boolean;
  /** `dir` has the PR's branch checked out (false only for a current-directory match on another branch). */
  onBranch: boolean;
  /** The git commands otto ran, in order. */
  commands: string[];
}

interface Ctx {
  input: MapPrInput;
  repo: Repo;
  remote: string;
  git: GitEnv;
  commands: string[];
}

async function run(ctx: Ctx, args: string[], cwd: string): Promise<void> {
  ctx.commands.push(describeCommand(args, cwd));
  await gitOutput(args, { ...ctx.git, cwd });
}

async function fetchPrBranch(ctx: Ctx): Promise<void> {
  await fetchBranch(ctx.repo.primary_dir, ctx.remote, ctx.input.branch, {
    git: ctx.git,
    remoteLabel: `${ctx.remote} (${ctx.input.repoUrl})`,
    onCommand: (command) => ctx.commands.push(command),
  });
}

async function viaWorktree(ctx: Ctx): Promise<PrWorkdir> {
  const { repo, input } = ctx;
  const base = { repo, strategy: repo.git_strategy, remote: ctx.remote, onBranch: true, commands: ctx.commands };
  const worktrees = await listGitWorktrees(repo.primary_dir, ctx.git);
  const existing = worktrees.find((w) => w.branch === input.branch && !w.prunable);
  if (existing) return { ...base, dir: existing.path, created: false };
  const dir = path.join(worktreeDirOf(repo), worktreeNameFor(repo.branch_template, input.branch));
  if (fs.existsSync(dir)) {
    const other = worktrees.find((w) => realPath(w.path) === realPath(dir));
    const has = other ? `has ${other.branch ?? "a detached HEAD"} checked out` : "is not a worktree of this repo";
    throw new OttoError(
      "worktree_conflict",
      `${dir} already exists and ${has}, so it cannot hold branch '${input.branch}'.`,
      `Move or remove ${dir} (/otto-worktree list --repo ${repo.name} shows it), then run the command again.`,
    );
  }
  await fetchPrBranch(ctx);
  const exists = await branchExists(repo.primary_dir, input.branch, ctx.git);
  await run(
    ctx,
    exists
      ? ["worktree", "add", dir, input.branch]
      : ["worktree", "add", "--track", "-b", input.branch, dir, `${ctx.remote}/${input.branch}`],
    repo.primary_dir,
  );
  return { ...base, dir, created: true };
}

async function viaBranch(ctx: Ctx): Promise<PrWorkdir> {
  const { repo, input } = ctx;
  const dir = repo.primary_dir;
  const result = { dir, repo, strategy: repo.git_strategy, remote: ctx.remote, created: false, onBranch: true, commands: ctx.commands };
  const current = await currentBranch(dir, ctx.git);
  if (current !== input.branch) {
    const status = await readStatus(dir, ctx.git);
    if (status.dirty) {
      throw new OttoError(
        "worktree_dirty",
        `Cannot check out '${input.branch}' in ${dir}: it has uncommitted changes on ${current ?? "a detached HEAD"}:\n${status.changes
          .slice(0, 10)
          .map((c) => `  ${c}`)
          .join("\n")}`,
        `Commit or stash them first (git -C ${dir} stash -u), then run the command again.`,
      );
    }
  }
  await fetchPrBranch(ctx);
  if (current === input.branch) return result;
  const exists = await branchExists(dir, input.branch, ctx.git);
  // The local branch when there is one, else a new one tracking the fetched remote branch.
  await run(ctx, exists ? ["checkout", input.branch] : ["checkout", "--track", "-b", input.branch, `${ctx.remote}/${input.branch}`], dir);
  return result;
}

async function viaHandsOff(ctx: Ctx): Promise<PrWorkdir> {
  const { repo, input } = ctx;
  const dir = repo.primary_dir;
  const current = await currentBranch(dir, ctx.git);
  if (current !== input.branch) {
    // `checkout <branch>` needs the branch locally or as <remote>/<branch>; otherwise fetch it first.
    const known =
      (await branchExists(dir, input.branch, ctx.git)) || (await refExists(dir, `refs/remotes/${ctx.remote}/${input.branch}`, ctx.git));
    const fetch = known ? "" : `${describeCommand(["fetch", ctx.remote, input.branch], dir)} && `;
    throw new OttoError(
      "hands_off_branch",
      `Repo '${repo.name}' is hands-off: otto does not switch branches, and ${dir} has ${current === undefined ? "a detached HEAD" : `'${current}'`} checked out, not '${input.branch}'.`,
      `${fetch}${describeCommand(["checkout", input.branch], dir)}`,
    );
  }
  return { dir, repo, strategy: "hands-off", remote: ctx.remote, created: false, onBranch: true, commands: ctx.commands };
}

/**
 * Finds the local working directory for a PR (design, "PR-to-Worktree Mapping"): the tracked repo
 * whose remote matches the PR's URL, by its git_strategy; else the current directory when it is a
 * clone of that repository. Never clones.
 */
export async function mapPrToWorkdir(input: MapPrInput): Promise<PrWorkdir> {
  const key = normalizeRemoteUrl(input.repoUrl);
  if (key === undefined) {
    throw new OttoError(
      "repo_url",
      `'${input.repoUrl}' is not a repository URL.`,
      "Pass the repository's https or ssh URL, e.g. https://github.com/org/repo.",
    );
  }
  const git = input.git ?? {};
  for (const repo of input.config.repos) {
    const match = (await remoteKeys(repo.primary_dir, git)).find((k) => k.key === key);
    if (!match) continue;
    const ctx: Ctx = { input, repo, remote: match.remote, git, commands: [] };
    if (repo.git_strategy === "worktree") return viaWorktree(ctx);
    if (repo.git_strategy === "branch") return viaBranch(ctx);
    return viaHandsOff(ctx);
  }
  const root = await repoRoot(input.cwd, git);
  const match = root === undefined ? undefined : (await remoteKeys(root, git)).find((k) => k.key === key);
  if (root !== undefined && match) {
    const onBranch = (await currentBranch(root, git)) === input.branch;
    return { dir: root, repo: undefined, strategy: "cwd", remote: match.remote, created: false, onBranch, commands: [] };
  }
  throw new OttoError(
    "repo_not_found",
    `Cannot find local repo for ${input.repoUrl}. Add it with /otto-repo add or run from within the repo.`,
    "Inside your clone of it, run /otto-repo add --yes (otto never clones).",
  );
}
