import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/*
 * The programs a project's scripts run from its dependencies: `npm test` puts every
 * `node_modules/.bin` from the package up to the tree's root first on PATH, so a
 * `node_modules/.bin/node` a session planted answers `node test.js` with exit 0. node_modules is
 * ignored, so no diff shows it. The snapshot before the sessions records what each `.bin` entry
 * is (a link's text and the bytes it leads to, a file's bytes); the restored run refuses a fix when
 * they differ afterwards (restored-checks.ts).
 */

/** Entries of one `.bin` looked at at most: a real one has hundreds. */
const MAX_ENTRIES = 5000;
/** A program bigger than this is recorded by size and mtime only. */
const MAX_HASH_BYTES = 4 * 1024 * 1024;

/** The `node_modules/.bin` folders of the tree: the root's and those of ignored `node_modules/` folders the snapshot names. */
export function binFolders(ignored: readonly string[]): string[] {
  const folders = new Set(["node_modules/.bin"]);
  for (const entry of ignored) if (/(?:^|\/)node_modules\/$/.test(entry)) folders.add(`${entry}.bin`);
  return [...folders].sort();
}

async function describe(file: string): Promise<string> {
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat) return "absent";
  const link = stat.isSymbolicLink() ? `link:${await fs.readlink(file)}|` : "";
  const target = stat.isSymbolicLink() ? await fs.stat(file).catch(() => undefined) : stat;
  if (!target?.isFile()) return `${link}other`;
  if (target.size > MAX_HASH_BYTES) return `${link}${target.size}:${target.mtimeMs}:${target.mode}`;
  const bytes = await fs.readFile(file).catch(() => undefined);
  return `${link}${target.mode & 0o777}:${bytes ? createHash("sha256").update(bytes).digest("hex") : "unreadable"}`;
}

/** `<folder>/<name>` → what it is, for every entry of the `.bin` folders of `root`. */
export async function fingerprintBins(root: string, ignored: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const folder of binFolders(ignored)) {
    const names = await fs.readdir(path.join(root, folder)).catch(() => []);
    for (const name of names.sort().slice(0, MAX_ENTRIES)) out[`${folder}/${name}`] = await describe(path.join(root, folder, name));
  }
  return out;
}

/** Pure: the entries added, removed or changed between two fingerprints. */
export function changedBins(before: Record<string, string>, after: Record<string, string>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]).sort();
}
