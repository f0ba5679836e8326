import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/*
 * The programs a project's scripts run from its dependencies: `npm test` puts every
 * `node_modules/.bin` from the package up to the tree's root first on PATH, so a
 * `node_modules/.bin/node` a session planted answers `node test.js` with exit 0. node_modules is
 * ignored, so no diff shows it. The snapshot before the sessions records what each `.bin` entry
 * is (a link's text and the bytes it leads to, a file's bytes); the restored run refuses a fix when
 * they differ afterwards (restored-checks.ts). The rest of each node_modules folder (the libraries
 * the tests load) is recorded as one digest of its entries' metadata, cheaply, and refused the same way.
 * So is every other ignored place a check loads code from: a Python virtual environment (a `.pth`
 * file in its site-packages runs at every start; its `__pycache__` folders are left out, as checks
 * run with bytecode of their own, checks.ts), Yarn's `.yarn/` and Plug'n'Play loaders (`.pnp.cjs`).
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

/** Ignored folders (other than node_modules) and files the checks load code from. */
const CODE_FOLDER = /(?:^|\/)(?:\.venv|venv|\.yarn)\/$/;
const CODE_FILE = /(?:^|\/)\.pnp\.[^/]+$/;

/** Pure: the ignored entries, other than node_modules, whose change would change what the checks run. */
export function codePlaces(ignored: readonly string[]): string[] {
  return ignored.filter((entry) => CODE_FOLDER.test(entry) || CODE_FILE.test(entry)).sort();
}

/** Left out of a virtual environment's digest at any depth: bytecode the checks neither read nor write (checks.ts). */
const BYTECODE = new Set(["__pycache__"]);

/**
 * Folders directly under a node_modules that tools write while the checks run (babel-loader's and
 * eslint's caches, Vite's pre-bundled dependencies): left out, or every fix would be refused.
 */
const RUNTIME_CACHES = new Set([".cache", ".vite", ".vite-temp", ".tmp"]);

/**
 * One digest of everything under a `node_modules/` folder: each entry's path, type, size, mode,
 * link text, modification and change times. The change time (ctime) cannot be set back by the
 * code that wrote a file, so a library rewritten and `touch`ed to its old mtime still counts. A
 * dependency the checks load (an assertion library, the runner's own `lib/`) is ignored by git
 * like `.bin`: no diff shows it changed.
 */
async function digestTree(dir: string, skip: ReadonlySet<string> = new Set()): Promise<string | undefined> {
  const hash = createHash("sha256");
  let pending = [""];
  let any = false;
  while (pending.length > 0) {
    const next: string[] = [];
    for (const rel of pending) {
      const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => undefined);
      if (!entries) continue;
      any = true;
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const stats = await Promise.all(
        entries.map(async (e) => {
          const child = rel === "" ? e.name : `${rel}/${e.name}`;
          if ((rel === "" && RUNTIME_CACHES.has(e.name)) || skip.has(e.name)) return undefined;
          const stat = await fs.lstat(path.join(dir, child)).catch(() => undefined);
          const link = stat?.isSymbolicLink() ? await fs.readlink(path.join(dir, child)).catch(() => "") : "";
          return { child, stat, link, isDir: e.isDirectory() };
        }),
      );
      for (const entry of stats) {
        if (!entry) continue;
        const { child, stat, link } = entry;
        hash.update(`${child}\0${stat ? `${stat.mode}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}` : "gone"}\0${link}\n`);
        if (entry.isDir) next.push(child);
      }
    }
    pending = next;
  }
  return any ? hash.digest("hex") : undefined;
}

/** `<folder>/<name>` → what it is, for every entry of the `.bin` folders of `root`; `<folder>/` → the digest of each node_modules folder. */
export async function fingerprintBins(root: string, ignored: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const folder of binFolders(ignored)) {
    const names = await fs.readdir(path.join(root, folder)).catch(() => []);
    for (const name of names.sort().slice(0, MAX_ENTRIES)) out[`${folder}/${name}`] = await describe(path.join(root, folder, name));
    const modules = path.dirname(folder);
    const digest = await digestTree(path.join(root, modules));
    if (digest) out[`${modules}/`] = digest;
  }
  for (const entry of codePlaces(ignored)) {
    const at = path.join(root, entry);
    const digest = entry.endsWith("/") ? await digestTree(at, BYTECODE) : await describe(at);
    if (digest) out[entry] = digest;
  }
  return out;
}

/** Pure: the entries added, removed or changed between two fingerprints. */
export function changedBins(before: Record<string, string>, after: Record<string, string>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]).sort();
}
