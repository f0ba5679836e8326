import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/index.ts";
import type { GitRun } from "./snapshot.ts";

/*
 * OpenCode configuration a session wrote is code the next OpenCode start in the checkout would
 * load, outside any sandbox: a plugin or a tool in `.opencode/`, an MCP server or a permission in
 * `opencode.json`. Otto never commits it and moves it out of the tree before a commit, into its
 * own data folder, where a person can look; a file the session changed that the last commit has is
 * put back as it was. Paths are the ones the session changed (never the user's), moved without
 * following a link.
 */

/** Configuration OpenCode loads as code or permissions: a `.opencode` folder's content, `opencode.json(c)`. */
export function isOpencodeCode(rel: string): boolean {
  const parts = rel.split("/").map((p) => p.toLowerCase());
  return parts.includes(".opencode") || /^opencode\.jsonc?$/.test(parts.at(-1) ?? "");
}

export interface Quarantined {
  /** Paths relative to the tree's top. */
  paths: string[];
  /** Where they went. */
  dir: string;
}

/**
 * Moves OpenCode code out of the tree: the session-changed `paths` that are, and those git ignores
 * that were not there when the run started (`ignoredBefore`: the snapshot's ignored paths, folders
 * ending in "/"). Undefined when there is none.
 */
export async function quarantineOpencodeCode(
  git: GitRun,
  cwd: string,
  paths: readonly string[],
  env: Env,
  ignoredBefore: readonly string[] = [],
): Promise<Quarantined | undefined> {
  const top = await git(["rev-parse", "--show-toplevel"], { cwd });
  const root = top.exitCode === 0 ? top.stdout.trim() : cwd;
  // What git ignores is listed too: a session's `.opencode/.gitignore` holding `*` must not hide a plugin.
  const listed = await git(["-c", "core.quotepath=off", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], {
    cwd: root,
  });
  const before = (p: string): boolean => ignoredBefore.some((i) => p === i || (i.endsWith("/") && p.startsWith(i)));
  // A failed listing has no names in it; what it has is taken (moving too much fails safe).
  const hidden = listed.stdout
    .split("\0")
    .filter((p) => isOpencodeCode(p) && !before(p))
    .map((p) => p.replace(/\/$/, ""));
  const chosen = [...new Set([...paths.filter(isOpencodeCode), ...hidden])];
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const dir = path.join(xdgPaths(env).ottoDataDir, "quarantine", `${path.basename(root)}-${stamp}`);
  const moved: string[] = [];
  for (const rel of chosen) {
    const from = path.join(root, rel);
    if (!throughNoLink(root, rel)) continue;
    if (!fs.lstatSync(from, { throwIfNoEntry: false })) {
      // Deleted by the session: put back below.
    } else {
      const to = path.join(dir, rel);
      fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
      move(from, to);
    }
    // A file the last commit has is the user's: back as it was.
    const tracked = await git(["cat-file", "-e", `HEAD:${rel}`], { cwd: root });
    if (tracked.exitCode === 0) await git(["checkout", "-q", "HEAD", "--", `:(literal)${rel}`], { cwd: root });
    moved.push(rel);
  }
  return moved.length > 0 ? { paths: moved, dir } : undefined;
}

/** True when no folder between `root` and `rel`'s last part is a link (the last part itself may be one: it is moved as a link). */
function throughNoLink(root: string, rel: string): boolean {
  const parts = rel.split("/");
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return false;
  }
  return true;
}

/** Moves `from` (a file, a link as a link, or a folder) to `to`, making `to`'s folder. */
export function moveOut(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
  move(from, to);
}

function move(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    const stat = fs.lstatSync(from);
    if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
    else if (stat.isDirectory()) fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    else fs.copyFileSync(from, to);
    fs.rmSync(from, { recursive: true });
  }
}

/** The summary's line for what was moved out. */
export function quarantineLine(q: Quarantined): string {
  const list = q.paths.slice(0, 10).join(", ") + (q.paths.length > 10 ? ` and ${q.paths.length - 10} more` : "");
  return `Moved out of the tree, not committed: ${list}: OpenCode configuration a session wrote, which the next OpenCode start would load outside the sandbox. It is in ${q.dir}: look before you copy any of it back.`;
}
