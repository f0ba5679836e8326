import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { gitFailure } from "./git-errors.ts";
import type { GitResult } from "./git.ts";
import { fingerprintBins } from "./dependency-bins.ts";
import { hashIgnoredFiles } from "./ignored-content.ts";

/*
 * What a checkout held before otto's sessions ran, so a commit takes only what they changed
 * (docs/security.md). The snapshot is every path `git status` reports (modified, staged,
 * deleted, untracked; ignored files never count) with a fingerprint of what is on disk there. After
 * the sessions, a path whose fingerprint is the same is the user's and is not committed; a path
 * that was clean and is now changed is the sessions'; a path that was dirty AND changed since has
 * the user's edits mixed with a session's and is left uncommitted, and said so.
 *
 * The snapshot also names (never reads) what git ignored then: a session that edits .gitignore,
 * .git/info/exclude or a nested .gitignore makes the user's ignored `.env` look like a new file,
 * and a path ignored at snapshot time is the user's whatever git says later. An ignored folder is
 * one entry ("node_modules/", as `git status --ignored=matching` reports it, without walking it)
 * and covers everything under it.
 */

/** What the helpers run git with; tests pass a counting or failing runner. */
export type GitRun = (args: string[], options: { cwd: string; timeoutMs?: number; input?: string; raw?: boolean }) => Promise<GitResult>;

/**
 * `entries`: path (relative to the top of the work tree) → fingerprint of what was on disk.
 * `ignored`: the paths git ignored then, names only; a folder ends in "/". Optional: an execute
 * baseline stored by an older otto has none.
 * `ignoredBlobs`: git blob id → ignored file, the content of the ignored files (ignored-content.ts),
 * so a copy under another name is refused too. Optional, like `ignored`.
 */
export const TreeSnapshot = z.object({
  entries: z.record(z.string(), z.string()),
  ignored: z.array(z.string()).optional(),
  ignoredBlobs: z.record(z.string(), z.string()).optional(),
  /** What each `node_modules/.bin` entry was (dependency-bins.ts): the restored run refuses a fix that changed one. */
  bins: z.record(z.string(), z.string()).optional(),
});
export type TreeSnapshot = z.infer<typeof TreeSnapshot>;

/** A snapshot of a clean tree with nothing ignored (otto's fresh temporary worktree): every change after it is the sessions'. */
export const CLEAN_TREE: TreeSnapshot = { entries: {} };

export interface TreeChanges {
  /** Changed by the sessions only: what a commit may take. */
  paths: string[];
  /** Dirty before the run and changed since: the user's edits mixed with a session's, left uncommitted. */
  kept: string[];
  /** Dirty before the run and the same now: the user's, never committed. */
  untouched: string[];
  /** Ignored when the snapshot was taken and reported by git now (what git ignores changed since): the user's, never committed. */
  ignored: string[];
}

/** The paths `git status` reports, from `--porcelain=v1 -z --no-renames` (a rename is a deletion and an addition). */
export function parsePorcelainZ(text: string): string[] {
  return text
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
}

// `--ignore-submodules=all`: git never runs inside a nested repository (its config is a session's); otto never commits one.
const STATUS = ["status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all", "--ignore-submodules=all"];

async function dirtyPaths(git: GitRun, dir: string): Promise<string[]> {
  const result = await git(STATUS, { cwd: dir });
  if (result.exitCode !== 0) throw gitFailure(STATUS, dir, result);
  // Untracked directories listed whole (a nested repository) keep their trailing slash out of the key.
  return parsePorcelainZ(result.stdout).map((p) => p.replace(/\/$/, ""));
}

/*
 * `matching`: a folder is named whole ("node_modules/") only when an ignore pattern matches the
 * folder itself, so git does not walk it and a file made later in a folder that merely held
 * ignored files (`logs/` with only `*.log` in it) is not taken for ignored. `ls-files --directory`
 * would name such a folder whole.
 */
const IGNORED = ["status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=normal", "--ignore-submodules=all"];

/** What git ignores in the tree at `root` (untracked only: a tracked file is never ignored), names only. */
async function ignoredPaths(git: GitRun, root: string): Promise<string[]> {
  const result = await git(IGNORED, { cwd: root });
  if (result.exitCode !== 0) throw gitFailure(IGNORED, root, result);
  return result.stdout
    .split("\0")
    .filter((entry) => entry.startsWith("!! "))
    .map((entry) => entry.slice(3))
    .sort();
}

/** Pure: whether `file` was ignored when `snapshot` was taken: named itself, or under an ignored folder. */
export function ignoredAt(snapshot: TreeSnapshot, file: string): boolean {
  const ignored = snapshot.ignored;
  if (!ignored || ignored.length === 0) return false;
  const set = ignoredSets.get(ignored) ?? new Set(ignored);
  ignoredSets.set(ignored, set);
  if (set.has(file) || set.has(`${file}/`)) return true;
  for (let i = file.indexOf("/"); i !== -1; i = file.indexOf("/", i + 1)) if (set.has(file.slice(0, i + 1))) return true;
  return false;
}

// A commit asks for every dirty path; the list of a big tree is made a set once.
const ignoredSets = new WeakMap<readonly string[], Set<string>>();

/** What is on disk at `file`: absent, a symlink's target, a directory, or a file's mode and content hash. */
export async function fingerprint(file: string): Promise<string> {
  const stat = await fs.promises.lstat(file).catch(() => undefined);
  if (!stat) return "absent";
  if (stat.isSymbolicLink()) return `link:${await fs.promises.readlink(file)}`;
  // A submodule or a nested repository: its own git knows what changed there; otto does not commit inside it.
  if (stat.isDirectory()) return "dir";
  // A FIFO or a socket a session made: opening it would wait for a writer that never comes.
  if (!stat.isFile()) return "other";
  const hash = createHash("sha256");
  const read = await new Promise<boolean>((resolve, reject) => {
    fs.createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(true))
      // Gone between lstat and read (a temp file renamed over while a session runs): absent now.
      .on("error", (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? resolve(false) : reject(error)));
  });
  if (!read) return "absent";
  return `file:${stat.mode & 0o111 ? "755" : "644"}:${hash.digest("hex")}`;
}

/*
 * A directory's top level, asked once per git runner: a run snapshots its tree before and after
 * every session with the same runner, and a repository's top level does not move under it. A
 * failed answer is not kept.
 */
const topLevels = new WeakMap<GitRun, Map<string, Promise<string>>>();

function topLevel(git: GitRun, dir: string): Promise<string> {
  let known = topLevels.get(git);
  if (!known) topLevels.set(git, (known = new Map<string, Promise<string>>()));
  let root = known.get(dir);
  if (!root) {
    root = git(["rev-parse", "--show-toplevel"], { cwd: dir }).then((result) => {
      if (result.exitCode !== 0) throw gitFailure(["rev-parse", "--show-toplevel"], dir, result);
      return result.stdout.trim();
    });
    const cache = known;
    root.catch(() => cache.delete(dir));
    known.set(dir, root);
  }
  return root;
}

async function fingerprints(root: string, paths: readonly string[]): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  for (const p of paths) entries[p] = await fingerprint(path.join(root, p));
  return entries;
}

/** Every uncommitted path of the tree at `dir` with what is on disk there, and what git ignores, before any session runs. */
export async function snapshotTree(git: GitRun, dir: string): Promise<TreeSnapshot> {
  const root = await topLevel(git, dir);
  const entries = await fingerprints(root, await dirtyPaths(git, root));
  const ignored = await ignoredPaths(git, root);
  const found = await fingerprintBins(root, ignored);
  const bins = Object.keys(found).length > 0 ? { bins: found } : {};
  if (!ignored.some((p) => !p.endsWith("/"))) return { entries, ignored, ...bins };
  const format = await git(["rev-parse", "--show-object-format"], { cwd: root });
  const sha256 = format.exitCode === 0 && format.stdout.trim() === "sha256";
  return { entries, ignored, ...bins, ignoredBlobs: await hashIgnoredFiles(root, ignored, sha256 ? "sha256" : "sha1") };
}

/** Pure: which paths changed since `before`, given what is dirty now (`after`, same keys as a snapshot). */
export function diffSnapshots(before: TreeSnapshot, after: TreeSnapshot): TreeChanges {
  const paths: string[] = [];
  const kept: string[] = [];
  const untouched: string[] = [];
  const ignored: string[] = [];
  const all = new Set([...Object.keys(before.entries), ...Object.keys(after.entries)]);
  for (const p of [...all].sort()) {
    if (ignoredAt(before, p)) {
      ignored.push(p);
      continue;
    }
    // A path git no longer reports is clean: what HEAD holds.
    const was = before.entries[p] ?? "clean";
    const now = after.entries[p] ?? "clean";
    if (was === now) untouched.push(p);
    else if (was === "clean") paths.push(p);
    else kept.push(p);
  }
  return { paths, kept, untouched, ignored };
}

/** What the sessions changed since `before`, and what they changed on top of the user's own edits. */
export async function changesSince(git: GitRun, dir: string, before: TreeSnapshot): Promise<TreeChanges> {
  const root = await topLevel(git, dir);
  // A path dirty before and clean now counts as changed: a session reverted (or committed) the user's edit.
  // A path ignored before is not read at all (an un-ignored node_modules would be thousands of files).
  const dirty = await dirtyPaths(git, root);
  const entries = await fingerprints(
    root,
    dirty.filter((p) => !ignoredAt(before, p)),
  );
  for (const p of dirty) if (!(p in entries)) entries[p] = "ignored";
  return diffSnapshots(before, { entries });
}
