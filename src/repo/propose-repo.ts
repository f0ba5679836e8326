import path from "node:path";
import type { GitEnv } from "../workspace/index.ts";
import { listGitWorktrees, listRemotes, repoRoot } from "../workspace/index.ts";
import { repositoryName } from "../workspace/index.ts";
import type { RepoEntry } from "./repos-config.ts";

export interface RepoProposal {
  entry: RepoEntry & { worktree_dir: string; git_strategy: "worktree" };
  /** The remote the name came from (origin when there is one). */
  remoteUrl: string | undefined;
}

/**
 * What `/otto-repo add` suggests inside a clone: name from the remote (else the folder), the main
 * clone as primary_dir (also from inside one of its worktrees), `<primary>-wt` for worktrees and
 * the worktree strategy. undefined outside a git repository.
 */
export async function proposeRepo(cwd: string, git: GitEnv = {}): Promise<RepoProposal | undefined> {
  const root = await repoRoot(cwd, git);
  if (root === undefined) return undefined;
  const main = (await listGitWorktrees(root, git))[0];
  const primary = main && !main.bare ? main.path : root;
  const remote = (await listRemotes(primary, git))[0];
  // A local path remote (a bare repo next to the clone) names nothing useful; the folder does.
  const fromRemote = remote && !remote.url.startsWith("/") && !remote.url.startsWith("file:") ? repositoryName(remote.url) : undefined;
  const name = (fromRemote ?? path.basename(primary)).replace(/[^A-Za-z0-9._-]+/g, "-");
  return {
    entry: { name, primary_dir: primary, worktree_dir: `${primary}-wt`, git_strategy: "worktree" },
    remoteUrl: remote?.url,
  };
}
