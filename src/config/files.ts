import path from "node:path";
import { xdgPaths, type Env, exists } from "../core/index.ts";

export const CONFIG_FILE_NAME = "otto.jsonc";

export interface ConfigFiles {
  /** $XDG_CONFIG_HOME/otto/otto.jsonc (default ~/.config/otto/otto.jsonc), whether or not it exists. */
  user: string;
  /** <repo>/.otto/otto.jsonc; undefined outside a git repository unless <directory>/.otto/otto.jsonc exists. */
  repo: string | undefined;
  /** The git top-level of the directory, when it is inside a repository. */
  repoRoot: string | undefined;
}

export function userConfigFile(env: Env): string {
  return path.join(xdgPaths(env).ottoConfigDir, CONFIG_FILE_NAME);
}

export function repoConfigFile(root: string): string {
  return path.join(root, ".otto", CONFIG_FILE_NAME);
}

/**
 * The git top-level above `directory`: the nearest ancestor holding `.git` (a directory in a
 * clone, a file in a worktree or submodule). Walking the tree avoids spawning git for a lookup.
 */
export async function findRepoRoot(directory: string): Promise<string | undefined> {
  let current = path.resolve(directory);
  for (;;) {
    if (await exists(path.join(current, ".git"))) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

export async function locateConfigFiles(input: { directory: string; env: Env }): Promise<ConfigFiles> {
  const repoRoot = await findRepoRoot(input.directory);
  const fallback = repoConfigFile(path.resolve(input.directory));
  const repo = repoRoot ? repoConfigFile(repoRoot) : (await exists(fallback)) ? fallback : undefined;
  return { user: userConfigFile(input.env), repo, repoRoot };
}
