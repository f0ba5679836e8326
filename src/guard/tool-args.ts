import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import type { runGit } from "../workspace/index.ts";
import { resolvedPath } from "./tool-paths.ts";

/*
 * What a guarded call's arguments name, read as OpenCode and the shell will read them: the files
 * a file tool opens, the path otto hands OpenCode instead, the credential stores a reading command
 * names, the checkout's git aliases and the scripts a command runs.
 */

/** Scripts larger than this are not read (the env layer still holds them). */
const MAX_SCRIPT_BYTES = 256 * 1024;

/** The file paths a file tool's arguments name (edit/write: filePath; patches: their file headers). */
export function filesOf(args: Record<string, unknown>): string[] {
  const files: string[] = [];
  for (const key of ["filePath", "file_path", "path"]) {
    const value = args[key];
    if (typeof value === "string") files.push(value);
  }
  for (const key of ["patchText", "patch", "input"]) {
    const text = args[key];
    if (typeof text !== "string") continue;
    // apply_patch headers, with or without a space after the colon (OpenCode takes both), as written.
    for (const match of text.matchAll(/^\*\*\* (?:(?:Add|Update|Delete) File|Move to):[ \t]*(.+)$/gm)) {
      if (match[1]?.trim()) files.push(match[1].trim());
    }
    // Unified diff headers: as written, and without git's a/ b/ prefix (a tool may apply either).
    for (const match of text.matchAll(/^(?:\+\+\+|---)[ \t]+(.+)$/gm)) {
      const file = match[1]?.trim() ?? "";
      if (file === "" || file === "/dev/null") continue;
      files.push(file);
      if (/^[ab]\//.test(file)) files.push(file.slice(2));
    }
  }
  return files;
}

/**
 * The real path of `file`, spelled from the tree's own path when it lies in the tree (the session's
 * records keep that spelling). A folder of the tree named `..x` is in it: only `..` leads out.
 */
export function judgedPath(file: string, tree: string): string {
  const real = resolvedPath(path.resolve(tree, file));
  const rel = path.relative(resolvedPath(tree), real);
  return rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel) ? path.join(tree, rel) : real;
}

/** Why a reading command may not run: it names a credential store of `stores` (as a path, `~/…` or `$HOME/…`); undefined when it does not. */
export function credentialWords(command: string, env: Env, stores: readonly string[]): string | undefined {
  const { home } = xdgPaths(env);
  for (const store of stores) {
    const spellings = [
      store,
      ...(store.startsWith(`${home}/`)
        ? [`~${store.slice(home.length)}`, `$HOME${store.slice(home.length)}`, `\${HOME}${store.slice(home.length)}`]
        : []),
    ];
    const named = spellings.find((s) => command.includes(s));
    if (named) return `reading ${named}, where credentials live`;
  }
  return undefined;
}

/** The checkout's git aliases, by name in lower case (git's own are case-insensitive). */
export async function aliasesOf(cwd: string, env: Env, git: typeof runGit): Promise<Record<string, string>> {
  const result = await git(["config", "-z", "--get-regexp", "^alias\\."], { cwd, env });
  const aliases: Record<string, string> = {};
  if (result.exitCode !== 0) return aliases;
  for (const entry of result.stdout.split("\0")) {
    const newline = entry.indexOf("\n");
    if (newline < 0) continue;
    aliases[entry.slice("alias.".length, newline).toLowerCase()] = entry.slice(newline + 1);
  }
  return aliases;
}

/** A script a command runs, to be classified as well; undefined for a folder, a missing file or one over 256 KiB. */
export function readScript(cwd: string, file: string): string | undefined {
  try {
    const full = path.resolve(cwd, file);
    const stat = fs.statSync(full);
    if (!stat.isFile() || stat.size > MAX_SCRIPT_BYTES) return undefined;
    return fs.readFileSync(full, "utf8");
  } catch {
    return undefined;
  }
}
