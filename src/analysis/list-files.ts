import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { GitRunner } from "./types.ts";
import { firstLine, SKIPPED_DIRS } from "../core/index.ts";

export function isSkippedPath(path: string): boolean {
  return path.split("/").some((segment) => SKIPPED_DIRS.has(segment));
}

/**
 * Test data and demos: listed and counted, but their manifests and sources do not describe the
 * project. `examples/` counts only at the top level, since Java packages live in `com/example/`.
 */
const NOT_THE_PROJECT = /(^|\/)(fixtures|__fixtures__|test-fixtures|testdata|third_party)\/|^(examples?|samples?)\//;

export function isNotTheProject(path: string): boolean {
  return NOT_THE_PROJECT.test(path);
}

export interface FileListing {
  /** Repo-relative, `/`-separated, sorted. */
  files: string[];
  listedBy: "git" | "walk";
  truncated: boolean;
  notes: string[];
}

export interface ListOptions {
  maxFiles: number;
  deadline: number;
  now: () => number;
  git: GitRunner;
}

/** `git ls-files` inside a work tree (honours .gitignore), else a bounded breadth-first walk. */
export async function listFiles(root: string, options: ListOptions): Promise<FileListing> {
  const notes: string[] = [];
  const timeoutMs = Math.max(options.deadline - options.now(), 500);
  const result = await options.git(["ls-files", "-co", "--exclude-standard", "-z"], { cwd: root, timeoutMs });
  if (result.exitCode === 0) {
    const listing = takeFiles(result.stdout.split("\0"), options.maxFiles);
    // A work tree whose files are all ignored (or a fresh `git init`) still gets a walk, so an
    // untracked project nested in another repo's ignored folder is not reported empty.
    if (listing.files.length > 0) return { ...listing, listedBy: "git", notes };
  } else if (!/not a git repository/i.test(result.stderr)) {
    notes.push(`git ls-files failed (${firstLine(result.stderr) || "unknown error"}); files were listed by walking the directory.`);
  }
  const walked = await walkFiles(root, options);
  return { files: walked.files, truncated: walked.truncated, listedBy: "walk", notes: [...notes, ...walked.notes] };
}

function takeFiles(paths: string[], maxFiles: number): { files: string[]; truncated: boolean } {
  const seen = new Set<string>();
  let truncated = false;
  for (const path of paths) {
    if (path === "" || seen.has(path) || isSkippedPath(path)) continue;
    if (seen.size >= maxFiles) {
      truncated = true;
      break;
    }
    seen.add(path);
  }
  return { files: [...seen].sort(), truncated };
}

async function walkFiles(root: string, options: ListOptions): Promise<Omit<FileListing, "listedBy">> {
  const files: string[] = [];
  const notes: string[] = [];
  const queue: string[] = [""];
  let truncated = false;
  for (let i = 0; i < queue.length && !truncated; i++) {
    if (options.now() > options.deadline) {
      notes.push(`The directory walk stopped at the time budget after ${files.length} files.`);
      truncated = true;
      break;
    }
    const dir = queue[i] ?? "";
    // An unreadable directory (permissions, removed mid-walk) is simply not listed.
    const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      // Symlinks are not followed: they can loop or leave the repository.
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) queue.push(path);
      if (!entry.isFile()) continue;
      if (files.length >= options.maxFiles) {
        truncated = true;
        break;
      }
      files.push(path);
    }
  }
  return { files: files.sort(), truncated, notes };
}
