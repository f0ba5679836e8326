import { isOttoError } from "../core/index.ts";
import { gitOutput } from "./git-errors.ts";
import { runGit, type GitEnv } from "./git.ts";
import { normalizeRemoteUrl } from "./remote-url.ts";
import { parseStatus, parseWorktreeList, type GitWorktree, type WorkingStatus } from "./status.ts";

/*
 * Questions about a local repository, for worktree listings and the PR features. Queries
 * return undefined when they do not apply (not a repository, no remote, detached HEAD);
 * failures git did not expect (a lock, a timeout) still throw.
 */

export interface Remote {
  name: string;
  /** As written in the config (not rewritten by url.<base>.insteadOf). */
  url: string;
}

async function query(args: string[], dir: string, git: GitEnv): Promise<string | undefined> {
  try {
    const result = await runGit(args, { ...git, cwd: dir });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  } catch (error) {
    // A directory that does not exist holds no repository: the question does not apply.
    if (isOttoError(error) && error.code === "git_no_directory") return undefined;
    throw error;
  }
}

/** The top level of the working tree that holds `dir`; undefined outside a repository. */
export function repoRoot(dir: string, git: GitEnv = {}): Promise<string | undefined> {
  return query(["rev-parse", "--show-toplevel"], dir, git);
}

/** Every remote with its URL, origin first. */
export async function listRemotes(dir: string, git: GitEnv = {}): Promise<Remote[]> {
  const text = (await query(["config", "--get-regexp", "^remote\\..*\\.url$"], dir, git)) ?? "";
  const remotes = text
    .split("\n")
    .map((line) => /^remote\.(.+)\.url (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1] ?? "", url: m[2] ?? "" }));
  return remotes.sort((a, b) => Number(b.name === "origin") - Number(a.name === "origin"));
}

/** The URL of a remote (default origin) as configured; undefined when there is none. */
export async function remoteUrl(dir: string, git: GitEnv = {}, remote = "origin"): Promise<string | undefined> {
  return (await listRemotes(dir, git)).find((r) => r.name === remote)?.url;
}

/** The remote's URL normalised (see normalizeRemoteUrl), for comparing repositories. */
export async function normalizedRemoteUrl(dir: string, git: GitEnv = {}, remote = "origin"): Promise<string | undefined> {
  const url = await remoteUrl(dir, git, remote);
  return url === undefined ? undefined : normalizeRemoteUrl(url);
}

/** Branch, HEAD, upstream, ahead/behind and uncommitted changes in one git call. */
export async function readStatus(dir: string, git: GitEnv = {}): Promise<WorkingStatus> {
  return parseStatus(await gitOutput(["status", "--porcelain=v2", "--branch"], { ...git, cwd: dir }));
}

/** The checked-out branch; undefined when HEAD is detached. */
export function currentBranch(dir: string, git: GitEnv = {}): Promise<string | undefined> {
  return query(["symbolic-ref", "--quiet", "--short", "HEAD"], dir, git);
}

/** The full SHA of HEAD; undefined in a repository without commits. */
export function headSha(dir: string, git: GitEnv = {}): Promise<string | undefined> {
  return query(["rev-parse", "--verify", "--quiet", "HEAD"], dir, git);
}

/** True when the working tree has uncommitted changes (untracked files count). */
export async function isDirty(dir: string, git: GitEnv = {}): Promise<boolean> {
  return (await readStatus(dir, git)).dirty;
}

/** Commits ahead of and behind the branch's upstream; undefined when it tracks nothing. */
export async function aheadBehind(dir: string, git: GitEnv = {}): Promise<{ upstream: string; ahead: number; behind: number } | undefined> {
  const status = await readStatus(dir, git);
  if (status.upstream === undefined || status.ahead === undefined || status.behind === undefined) return undefined;
  return { upstream: status.upstream, ahead: status.ahead, behind: status.behind };
}

/** Every worktree of the repository at `dir`, the main one first. */
export async function listGitWorktrees(dir: string, git: GitEnv = {}): Promise<GitWorktree[]> {
  return parseWorktreeList(await gitOutput(["worktree", "list", "--porcelain"], { ...git, cwd: dir }));
}

/** Commits of `branch` that no remote-tracking branch has (what deleting it would lose). */
export async function unpushedCommits(dir: string, branch: string, git: GitEnv = {}): Promise<string[]> {
  const out = await gitOutput(["rev-list", "--abbrev-commit", `refs/heads/${branch}`, "--not", "--remotes"], { ...git, cwd: dir });
  return out.split("\n").filter(Boolean);
}

/** True when the ref (full name, e.g. refs/remotes/origin/main) exists. */
export async function refExists(dir: string, ref: string, git: GitEnv = {}): Promise<boolean> {
  return (await query(["rev-parse", "--verify", "--quiet", ref], dir, git)) !== undefined;
}

/** True when the local branch exists. */
export function branchExists(dir: string, branch: string, git: GitEnv = {}): Promise<boolean> {
  return refExists(dir, `refs/heads/${branch}`, git);
}
