import { spawnSync } from "node:child_process";
import type { Env } from "../core/index.ts";
import { realPath, treeConfigFiles } from "../sandbox/index.ts";
import { gitBinary } from "./git-binary.ts";

/*
 * Clean and smudge filters are programs git runs when it checks files out or reads them in
 * (`worktree add`, `status`, `add`). The user's own filters (Git LFS, in ~/.gitconfig or
 * .git/config) are theirs and keep working; a filter defined in a config file of the tree (a
 * project's `.gitconfig` that `.git/config` includes) was written by whoever wrote the tree, so
 * otto's own git, which runs outside the sandbox, gets every such filter turned off as
 * command-line configuration: an empty program runs nothing, and a filter that is not required
 * leaves the file as it is stored.
 */

/** The filters config files in the tree define: each one's driver emptied. */
export function treeFilterOverrides(root: string, gitDirs: readonly string[], env: Env): Array<readonly [string, string]> {
  const names = new Set<string>();
  for (const file of treeConfigFiles(realPath(root), gitDirs.map(realPath), env)) {
    // Read as data: `git config --file`, no includes (each included file is in the list itself), from `/`.
    const result = spawnSync(
      gitBinary(env, root),
      ["config", "--file", file, "--no-includes", "--null", "--name-only", "--get-regexp", "^filter\\."],
      {
        cwd: "/",
        env: { PATH: env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent-otto-home" },
        encoding: "utf8",
        timeout: 5_000,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    for (const key of result.stdout?.split("\0") ?? []) {
      const last = key.lastIndexOf(".");
      if (last > "filter.".length) names.add(key.slice("filter.".length, last));
    }
  }
  return [...names].flatMap((name) => [
    [`filter.${name}.clean`, ""] as const,
    [`filter.${name}.smudge`, ""] as const,
    [`filter.${name}.process`, ""] as const,
    [`filter.${name}.required`, "false"] as const,
  ]);
}
