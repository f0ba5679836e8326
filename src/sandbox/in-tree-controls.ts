import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Env } from "../core/paths.ts";
import { realPath } from "./home.ts";
import { within } from "./policy.ts";

/*
 * Folders inside the tree whose files run later outside the sandbox, shown read-only inside: the
 * hooks folder an in-tree `core.hooksPath` names (husky's `.husky/_`: the user's own `git commit`
 * runs its hooks, with their credentials), and PATH entries inside the tree (an activated
 * `.venv/bin`, direnv's `PATH_add bin`: a program planted there shadows the user's, OpenCode's own
 * git among them). The tree itself stays writable even when PATH names it.
 */

const cache = new Map<string, string | undefined>();

/** core.hooksPath as the tree's git sees it (worktree, then local, then the user's settings), read as data from the files. */
function hooksPath(files: readonly string[]): string | undefined {
  const key = files.map((f) => `${f}:${fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? "-"}`).join("\0");
  if (cache.has(key)) return cache.get(key);
  let value: string | undefined;
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const result = spawnSync("git", ["config", "--file", file, "--no-includes", "--get", "core.hooksPath"], {
      cwd: "/",
      encoding: "utf8",
      timeout: 5_000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    if (result.status === 0 && result.stdout.trim()) {
      value = result.stdout.trim();
      break;
    }
  }
  cache.set(key, value);
  return value;
}

/** The read-only folders: real paths inside `root`, never `root` itself. */
export function inTreeControls(root: string, gitDirs: readonly string[], env: Env, settingsFile?: string): string[] {
  const inside = (p: string): boolean => p !== root && within(p, root);
  const out: string[] = [];
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir && path.isAbsolute(dir) && inside(realPath(dir))) out.push(realPath(dir));
  }
  // Precedence: a worktree's own config, then the repository's, then the user's global settings.
  const files = [
    ...[...gitDirs].reverse().flatMap((d) => [path.join(d, "config.worktree"), path.join(d, "config")]),
    ...(settingsFile ? [settingsFile] : []),
  ];
  const hooks = hooksPath(files);
  if (hooks) {
    const expanded = hooks.startsWith("~/") ? path.join(env.HOME ?? "/", hooks.slice(2)) : hooks;
    const dir = realPath(path.resolve(root, expanded));
    if (inside(dir)) out.push(dir);
    // husky 9: `.husky/_/<hook>` only calls `.husky/<hook>`, the body the user wrote: the folder above is read-only too.
    if (inside(dir) && path.basename(dir) === "_" && inside(path.dirname(dir))) out.push(path.dirname(dir));
  }
  return [...new Set(out)];
}
