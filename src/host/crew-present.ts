import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";

/** Whether any crew exists on this machine (otto's data folder has crews): one file-system check. */
export function crewsExist(env: Env): boolean {
  return fs.existsSync(path.join(xdgPaths(env).ottoDataDir, "crews"));
}

/**
 * Whether a crew may exist for this directory: `.otto/crew` in it, or in the main clone when the
 * directory is a git worktree (its `.git` file points into `<main>/.git/worktrees/<name>`). Two
 * file-system checks, so session events in projects without a crew never load the crew's code.
 */
export function crewMayExist(directory: string): boolean {
  if (fs.existsSync(path.join(directory, ".otto", "crew"))) return true;
  try {
    const gitFile = fs.readFileSync(path.join(directory, ".git"), "utf8");
    const gitdir = /^gitdir:\s*(.+)$/m.exec(gitFile)?.[1]?.trim();
    const main = gitdir ? /^(.*)[/\\]\.git[/\\]worktrees[/\\][^/\\]+$/.exec(path.resolve(directory, gitdir))?.[1] : undefined;
    return main !== undefined && fs.existsSync(path.join(main, ".otto", "crew"));
  } catch {
    return false;
  }
}
