import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import type { Repo } from "../config/index.ts";
import type { GitEnv } from "../workspace/index.ts";
import { listGitWorktrees, listRemotes, repoRoot } from "../workspace/index.ts";
import { normalizeRemoteUrl } from "../workspace/index.ts";

/** Where a repo's worktrees go: `worktree_dir`, or `<primary_dir>-wt` when it is unset. */
export function worktreeDirOf(repo: Repo): string {
  return repo.worktree_dir ?? `${repo.primary_dir.replace(/[\\/]+$/, "")}-wt`;
}

/** The path with symlinks resolved as far as it exists (macOS /tmp → /private/tmp). */
export function realPath(target: string): string {
  const resolved = path.resolve(target);
  try {
    return fs.realpathSync(resolved);
  } catch {
    const parent = path.dirname(resolved);
    return parent === resolved ? resolved : path.join(realPath(parent), path.basename(resolved));
  }
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(realPath(parent), realPath(child));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The normalised URLs of a directory's remotes; [] outside a repository. */
export async function remoteKeys(dir: string, git: GitEnv): Promise<Array<{ remote: string; key: string }>> {
  const remotes = await listRemotes(dir, git);
  return remotes.flatMap((r) => {
    const key = normalizeRemoteUrl(r.url);
    return key === undefined ? [] : [{ remote: r.name, key }];
  });
}

function unknownRepo(repos: readonly Repo[], what: string): OttoError {
  const names = repos.map((r) => r.name);
  return new OttoError(
    "repo_unknown",
    what,
    names.length > 0
      ? `Pass --repo <name> (tracked: ${names.join(", ")}), or add this repo: /otto-repo add`
      : "Add the repo first: run /otto-repo add inside its clone.",
  );
}

/**
 * The tracked repo a command is about: the one named by --repo, else the one whose primary dir,
 * worktree dir or remote URL matches the current directory.
 */
export async function findRepo(repos: readonly Repo[], options: { name?: string; cwd: string; git?: GitEnv }): Promise<Repo> {
  if (options.name !== undefined) {
    const named = repos.find((r) => r.name === options.name);
    if (!named) throw unknownRepo(repos, `No tracked repo is named '${options.name}'.`);
    return named;
  }
  // The deepest directory wins, so a repo cloned inside another tracked repo's folder is found.
  const byPath = repos
    .flatMap((r) =>
      [r.primary_dir, worktreeDirOf(r)].filter((dir) => isInside(options.cwd, dir)).map((dir) => ({ r, depth: realPath(dir).length })),
    )
    .sort((a, b) => b.depth - a.depth)[0]?.r;
  if (byPath) return byPath;
  const git = options.git ?? {};
  const root = await repoRoot(options.cwd, git);
  if (root !== undefined) {
    // A worktree outside worktree_dir still belongs to its main clone.
    const main = (await listGitWorktrees(root, git))[0]?.path;
    const byMain = main === undefined ? undefined : repos.find((r) => isInside(main, r.primary_dir));
    if (byMain) return byMain;
    const keys = new Set((await remoteKeys(root, git)).map((k) => k.key));
    for (const repo of repos) {
      if ((await remoteKeys(repo.primary_dir, git)).some((k) => keys.has(k.key))) return repo;
    }
  }
  throw unknownRepo(repos, `No tracked repo matches the current directory ${options.cwd}.`);
}
