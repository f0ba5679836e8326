import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { OttoError, SKIPPED_DIRS } from "../core/index.ts";
import type { GitRun } from "./snapshot.ts";

/*
 * An ignored file's content under another name: `cp .env config.example` makes a new file that no
 * ignore rule covers, so the rules on ignored paths let it through. The snapshot therefore also
 * records the git blob id of each ignored FILE it names (computed here from the bytes, as git
 * would: sha1 or sha256 of "blob <size>\0<content>"; no git runs on the content), and a commit or
 * a push that carries one of those ids under any path is refused (`ignored_content_in_commit`).
 *
 * What is hashed: files named by the ignore list, and the files inside an ignored folder (a
 * `scratch/` or `secrets/` of the user's) except dependency and build folders (node_modules/,
 * target/, .venv/ …), walked to a bounded depth and count; regular files only, up to
 * IGNORED_HASH_MAX_BYTES each, smallest first until IGNORED_HASH_BUDGET bytes: secrets (.env, a
 * key, credentials.json) are small, build output is big and many. Empty and whitespace-only files
 * are not recorded: any new empty file would match.
 */

/** Entries looked at inside ignored folders at most, and how deep: a big ignored tree stays cheap. */
const WALK_MAX_ENTRIES = 5000;
const WALK_MAX_DEPTH = 6;

/** The files inside the ignored folders of `ignored` (paths relative to `root`), bounded. */
async function filesInIgnoredFolders(root: string, ignored: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  let seen = 0;
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > WALK_MAX_DEPTH || seen >= WALK_MAX_ENTRIES) return;
    const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (++seen > WALK_MAX_ENTRIES) return;
      const child = path.posix.join(rel, e.name);
      if (e.isFile()) out.push(child);
      else if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) await walk(child, depth + 1);
    }
  };
  for (const folder of ignored) {
    if (!folder.endsWith("/")) continue;
    const name = folder.slice(0, -1);
    if (SKIPPED_DIRS.has(path.posix.basename(name))) continue;
    await walk(name, 1);
  }
  return out;
}

/** An ignored file bigger than this is not hashed (1 MiB): a secrets file is far smaller. */
const IGNORED_HASH_MAX_BYTES = 1024 * 1024;

/** Bytes hashed per snapshot at most (32 MiB), smallest files first: a tree of many ignored build files stays cheap. */
const IGNORED_HASH_BUDGET = 32 * 1024 * 1024;

export type ObjectFormat = "sha1" | "sha256";

/** Pure: git's blob id of `bytes` (what `git hash-object` prints without filters). */
export function blobId(bytes: Buffer, format: ObjectFormat = "sha1"): string {
  return createHash(format).update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/**
 * The blob ids a file's bytes may be committed as: as they are, and with CRLF turned into LF
 * (what `core.autocrlf` or `text` attributes make of them on `git add`).
 */
function blobIds(bytes: Buffer, format: ObjectFormat = "sha1"): string[] {
  const ids = [blobId(bytes, format)];
  if (bytes.includes("\r\n")) ids.push(blobId(Buffer.from(bytes.toString("latin1").replace(/\r\n/g, "\n"), "latin1"), format));
  return ids;
}

const blank = (bytes: Buffer): boolean => bytes.toString("latin1").trim() === "";

/** Blob id → ignored path, for the ignored files of `root` named in `ignored` (a snapshot's list; folders end in "/"). */
export async function hashIgnoredFiles(root: string, ignored: readonly string[], format: ObjectFormat): Promise<Record<string, string>> {
  const files: Array<{ file: string; size: number }> = [];
  for (const file of [...ignored.filter((f) => !f.endsWith("/")), ...(await filesInIgnoredFolders(root, ignored))]) {
    const stat = await fs.lstat(path.join(root, file)).catch(() => undefined);
    if (stat?.isFile() && stat.size > 0 && stat.size <= IGNORED_HASH_MAX_BYTES) files.push({ file, size: stat.size });
  }
  files.sort((a, b) => a.size - b.size || a.file.localeCompare(b.file));
  const out: Record<string, string> = {};
  let budget = IGNORED_HASH_BUDGET;
  for (const { file, size } of files) {
    if (size > budget) break;
    budget -= size;
    const bytes = await fs.readFile(path.join(root, file)).catch(() => undefined);
    if (!bytes || blank(bytes)) continue;
    for (const id of blobIds(bytes, format)) out[id] ??= file;
  }
  return out;
}

export interface IgnoredCopy {
  /** The path the commit would take or the push carries. */
  path: string;
  /** The ignored file of the user's whose content it holds. */
  copies: string;
}

/** Pure: the entries whose blob id is the content of an ignored file (`known`: a snapshot's ignoredBlobs). */
export function ignoredCopies(
  entries: ReadonlyArray<{ path: string; blob: string }>,
  known: Record<string, string> | undefined,
): IgnoredCopy[] {
  if (!known) return [];
  const found = new Map<string, IgnoredCopy>();
  for (const e of entries) {
    const copies = known[e.blob];
    if (copies !== undefined && copies !== e.path && !found.has(e.path)) found.set(e.path, { path: e.path, copies });
  }
  return [...found.values()];
}

/** The files among `paths` (relative to `root`) whose bytes are an ignored file's content. Deleted files, links and folders hold none. */
async function findIgnoredCopies(
  root: string,
  paths: readonly string[],
  known: Record<string, string> | undefined,
): Promise<IgnoredCopy[]> {
  if (!known || Object.keys(known).length === 0) return [];
  const format: ObjectFormat = Object.keys(known)[0]!.length === 64 ? "sha256" : "sha1";
  const entries: Array<{ path: string; blob: string }> = [];
  for (const p of paths) {
    const stat = await fs.lstat(path.join(root, p)).catch(() => undefined);
    // A CRLF file shrinks on `git add`: twice the limit still covers every file that can match.
    if (!stat?.isFile() || stat.size === 0 || stat.size > 2 * IGNORED_HASH_MAX_BYTES) continue;
    const bytes = await fs.readFile(path.join(root, p)).catch(() => undefined);
    if (bytes) for (const blob of blobIds(bytes, format)) entries.push({ path: p, blob });
  }
  return ignoredCopies(entries, known);
}

/** Refuses otto's commit when a file it would take holds an ignored file's content (commitChanges). */
export async function refuseIgnoredCopies(
  git: GitRun,
  cwd: string,
  paths: readonly string[],
  known: Record<string, string> | undefined,
): Promise<void> {
  if (!known || Object.keys(known).length === 0 || paths.length === 0) return;
  const top = await git(["rev-parse", "--show-toplevel"], { cwd });
  const found = await findIgnoredCopies(top.exitCode === 0 ? top.stdout.trim() : cwd, paths, known);
  if (found.length === 0) return;
  const list = found
    .slice(0, 10)
    .map((f) => `${f.path} (a copy of ${f.copies})`)
    .join(", ");
  throw new OttoError(
    "ignored_content_in_commit",
    `Nothing committed: ${list}${found.length > 10 ? ` and ${found.length - 10} more` : ""} ${found.length === 1 ? "holds" : "hold"} the content of a file git ignored when otto started; an ignored file is the user's and does not leave this machine under another name.`,
    "Delete the copy (or put it back in an ignored file), then run the command again: the rest of the work stays in the working tree. Commit such a file by hand if you mean to publish it.",
  );
}
