import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import { includedFiles, MAX_INCLUDE_DEPTH } from "./git-config-view.ts";
import { realPath } from "./home.ts";
import { within } from "./policy.ts";

/*
 * Folders inside the tree whose files run later outside the sandbox, shown read-only inside: the
 * hooks folder an in-tree `core.hooksPath` names (husky's `.husky/_`: the user's own `git commit`
 * runs its hooks, with their credentials), and PATH entries inside the tree (an activated
 * `.venv/bin`, direnv's `PATH_add bin`: a program planted there shadows the user's, OpenCode's own
 * git among them). The tree itself stays writable even when PATH names it. And the git config files
 * that lie where the sandbox could write them: a project's `.gitconfig` that `.git/config` includes,
 * a dotfiles checkout's file that `~/.gitconfig` includes (or is a link to); an fsmonitor or a filter
 * added there would run in every git of the user's that reads them.
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

/**
 * The config files git reads for a tree: its git directories' `config` and `config.worktree`, the
 * user's global files, and every file they include (whatever the condition, ten deep as git), as
 * real paths of files that exist.
 */
export function gitConfigFiles(gitDirs: readonly string[], env: Env, missing?: Set<string>): string[] {
  const { home, config } = xdgPaths(env);
  const found = new Set<string>();
  const visit = (file: string, depth: number): void => {
    const real = realPath(file);
    if (found.has(real) || depth > MAX_INCLUDE_DEPTH) return;
    let text: string;
    try {
      if (!fs.statSync(real).isFile()) return;
      text = fs.readFileSync(real, "utf8");
    } catch (error) {
      // An include that is not there yet: whoever makes it decides what git reads.
      if (depth > 0 && (error as NodeJS.ErrnoException).code === "ENOENT") missing?.add(real);
      return;
    }
    found.add(real);
    for (const included of includedFiles(text, file, home)) visit(included, depth + 1);
  };
  const globals = [env.GIT_CONFIG_GLOBAL ?? path.join(home, ".gitconfig"), path.join(config, "git", "config")];
  for (const file of [...gitDirs.flatMap((d) => [path.join(d, "config"), path.join(d, "config.worktree")]), ...globals]) visit(file, 0);
  return [...found];
}

/**
 * The read-only paths: real paths inside `root`, never `root` itself; and git config files inside
 * `root`, a git directory or `writable` (otto.jsonc's allow_write) besides the git directories' own.
 */
export function inTreeControls(
  root: string,
  gitDirs: readonly string[],
  env: Env,
  settingsFile?: string,
  writable: readonly string[] = [],
): string[] {
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
  // The files besides the git directories' own: which hooks path wins depends on where each include
  // stands, so every one they name (`hooksPath` reads no includes) is read-only.
  const others = otherConfigFiles(gitDirs, env);
  for (const hooks of [hooksPath(files), ...others.map((file) => hooksPath([file]))]) {
    if (!hooks) continue;
    const expanded = hooks.startsWith("~/") ? path.join(env.HOME ?? "/", hooks.slice(2)) : hooks;
    const dir = realPath(path.resolve(root, expanded));
    if (inside(dir)) out.push(dir);
    // husky 9: `.husky/_/<hook>` only calls `.husky/<hook>`, the body the user wrote: the folder above is read-only too.
    if (inside(dir) && path.basename(dir) === "_" && inside(path.dirname(dir))) out.push(path.dirname(dir));
  }
  out.push(...others.filter((file) => [root, ...gitDirs, ...writable].some((w) => within(file, w))));
  return [...new Set(out)];
}

/**
 * The config files git reads for the tree that lie in it, in a git directory or in `writable`
 * (sandboxed code can write them), the git directories' own `config` and `config.worktree` (read-only inside) left out.
 */
export function treeConfigFiles(root: string, gitDirs: readonly string[], env: Env, writable: readonly string[] = []): string[] {
  return otherConfigFiles(gitDirs, env).filter((file) => [root, ...gitDirs, ...writable].some((w) => within(file, w)));
}

/** gitConfigFiles without the git directories' own `config` and `config.worktree`. */
function otherConfigFiles(gitDirs: readonly string[], env: Env): string[] {
  const own = gitDirs.flatMap((d) => [path.join(d, "config"), path.join(d, "config.worktree")]);
  return gitConfigFiles(gitDirs, env).filter((file) => !own.includes(file));
}

/** The files the tree's git config includes that are missing, where sandboxed code could make them (the tree, a git directory). */
export function missingConfigIncludes(root: string, gitDirs: readonly string[], env: Env): string[] {
  const missing = new Set<string>();
  gitConfigFiles(gitDirs, env, missing);
  return [...missing].filter((file) => [root, ...gitDirs].some((w) => within(file, w)));
}
