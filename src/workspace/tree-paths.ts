import type { Env } from "../core/index.ts";
import type { TreePaths } from "../sandbox/index.ts";
import { runGit } from "./git.ts";

/** The tree around `cwd` and its git directories (a linked worktree has its own and the common one), for the sandbox. */
export async function treePaths(cwd: string, env?: Env): Promise<TreePaths> {
  const result = await runGit(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"], { cwd, ...(env ? { env } : {}) });
  if (result.exitCode !== 0) return { root: cwd, gitDirs: [] };
  const [root, gitDir, commonDir] = result.stdout.split("\n").map((line) => line.trim());
  if (!root) return { root: cwd, gitDirs: [] };
  return { root, gitDirs: [...new Set([gitDir, commonDir].filter((d): d is string => Boolean(d)))] };
}
