import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/errors.ts";
import { SKIPPED_DIRS } from "../core/skipped-dirs.ts";
import { readGitIndex } from "./git-index.ts";

/*
 * The user's own secrets in a work tree: a `.env` beside the code, a TLS key, a service account's
 * JSON. They are not the repository's (git ignores them, or they were never added), so a sandboxed
 * command does not see them. Tracked files stay visible: they are in the repository's history
 * anyway (readable with `git show`), a project's test fixtures are often keys and certificates.
 *
 * Found without running git (the tree is untrusted): a walk of the tree that skips the folders
 * packages and builds fill, and the index read as data for what is tracked.
 *
 * Decided from the tree as otto first saw it, because sandboxed code writes the tree and its index:
 * - what counts as tracked is the index at otto's first look at the tree in this process, and only
 *   for a file whose content on disk is the blob that index names (its own blob id, computed here).
 *   An entry a session adds later (`git update-index --add --cacheinfo …,.env`) un-hides nothing,
 *   and neither does one written before otto started: such an entry names a blob that is not the
 *   user's file (the session could not read the file to hash it);
 * - a file hidden once stays hidden for the rest of the process (remembered per tree, by path and
 *   inode), even if a later walk would not find it: a folder on its way renamed into `node_modules/`
 *   is followed by its inode;
 * - the walk goes breadth-first, checking each folder's names before it descends, with no entry
 *   budget and no depth limit: 20,001 files made in `+cache/`, or a chain of folders a session
 *   made, cost time, not the user's `.env`, however deep it lies.
 */

/** Names of files that hold secrets by convention. */
const SECRET_NAME = [
  /^\.env(\..+)?$/,
  /^\.envrc$/,
  /\.(pem|key|p12|pfx|jks|keystore)$/,
  /^id_(rsa|dsa|ecdsa|ed25519)(?!.*\.pub$)/,
  /^credentials\.json$/,
  /^service[-_]?account.*\.json$/,
  /^\.(npmrc|pypirc|netrc|git-credentials)$/,
];

/** A name that says it is a stand-in (`.env.example`, `key.sample.pem`) is not a secret. */
const STAND_IN = /example|sample|template|\.dist$/i;

/** A tracked secret-named file bigger than this is not hashed, and counts as not the repository's (hidden). */
const VERIFY_MAX_BYTES = 1024 * 1024;

export function isSecretName(name: string): boolean {
  return !STAND_IN.test(name) && SECRET_NAME.some((re) => re.test(name));
}

/** What otto decided about one tree at its first look, and every file it hid since (relative paths). */
interface TreeSecrets {
  /** Tracked at the first look, with content on disk equal to the index's blob. */
  tracked: ReadonlySet<string>;
  /** Each file hidden, by path, with its identity: a folder on its way renamed moves it, not its inode. */
  hidden: Map<string, string>;
}

// Per process on purpose: the decision must outlive every command a session runs in the tree.
const trees = new Map<string, TreeSecrets>();

/** Forgets what was decided for the tree at `root` (otto's temporary worktree, removed). */
export function forgetSecretFiles(root: string): void {
  trees.delete(realRoot(root));
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/** The secret-named regular files under `root` (relative, "/"-separated): breadth-first, names before folders, no links followed. */
function walkSecretNames(root: string): string[] {
  const found: string[] = [];
  let level: string[] = [""];
  while (level.length > 0) {
    const next: string[] = [];
    for (const rel of level) {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const child = rel ? `${rel}/${entry.name}` : entry.name;
        // Only regular files: a symlink named `.env` points elsewhere, and mounting over it would follow it.
        if (entry.isFile() && isSecretName(entry.name)) found.push(child);
        else if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) next.push(child);
      }
    }
    level = next;
  }
  return found;
}

/** Pure: git's blob id of `bytes` in the hash the index uses (20 bytes: SHA-1, 32: SHA-256). */
function blobIdOf(bytes: Buffer, hashBytes: number): string {
  return createHash(hashBytes === 32 ? "sha256" : "sha1")
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest("hex");
}

/** The files among `files` that the index tracks with the content they have on disk. */
function trackedAsOnDisk(root: string, files: readonly string[], indexFile: string | undefined): Set<string> {
  // An index otto cannot read tracks nothing here: every secret-named file is hidden.
  const index = indexFile ? readGitIndex(indexFile) : undefined;
  const out = new Set<string>();
  if (typeof index !== "object") return out;
  for (const rel of files) {
    const blob = index.entries.get(rel);
    if (!blob) continue;
    const file = path.join(root, rel);
    try {
      const stat = fs.lstatSync(file);
      if (!stat.isFile() || stat.size > VERIFY_MAX_BYTES) continue;
      if (blobIdOf(fs.readFileSync(file), index.hashBytes) === blob) out.add(rel);
    } catch {
      // Gone or unreadable: nothing to show.
    }
  }
  return out;
}

/** The identity (device and inode) of the regular file `rel` under `root`, reached without crossing a link. */
function identity(root: string, rel: string): string | undefined {
  let at = root;
  const parts = rel.split("/");
  for (const [i, part] of parts.entries()) {
    at = path.join(at, part);
    const stat = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!stat || (i < parts.length - 1 ? !stat.isDirectory() : !stat.isFile())) return undefined;
    if (i === parts.length - 1) return `${stat.dev}:${stat.ino}`;
  }
  return undefined;
}

/**
 * Where the files of `lost` (identities) are now: a session cannot move a hidden file (it is a
 * mount point) but can rename a folder on its way (`mv config node_modules/`), and the walk skips
 * such folders. Every folder is searched, no link followed; only when a hidden file went missing.
 */
function hunt(root: string, lost: ReadonlySet<string>): { found: Map<string, string>; unreadable: string[] } {
  const found = new Map<string, string>();
  const unreadable: string[] = [];
  const walk = (rel: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      unreadable.push(rel);
      return;
    }
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !(rel === "" && entry.name === ".git")) walk(child);
      else if (entry.isFile()) {
        const id = identity(root, child);
        if (id && lost.has(id)) found.set(child, id);
      }
    }
  };
  walk("");
  return { found, unreadable };
}

/**
 * The absolute paths of secret-like files under `root` to hide: those not tracked (with their
 * content) by the index at `indexFile` as it was at otto's first look at this tree, and every file
 * hidden for this tree before. An index otto cannot read counts as tracking nothing.
 */
export function findSecretFiles(root: string, indexFile?: string): string[] {
  const key = realRoot(root);
  const names = walkSecretNames(root);
  let known = trees.get(key);
  if (!known) {
    known = { tracked: trackedAsOnDisk(root, names, indexFile), hidden: new Map() };
    trees.set(key, known);
  }
  for (const rel of names) {
    const id = known.tracked.has(rel) ? undefined : identity(root, rel);
    if (id) known.hidden.set(rel, id);
  }
  const lost = new Map<string, string>();
  for (const [rel, id] of known.hidden) if (identity(root, rel) !== id) lost.set(id, rel);
  if (lost.size > 0) {
    const { found, unreadable } = hunt(root, new Set(lost.keys()));
    // Not found where every folder was read: deleted, nothing left to hide. Behind a folder otto
    // cannot read (a session's `chmod 000`), it may be there: no command runs until it is found.
    if (found.size < lost.size && unreadable.length > 0)
      throw new OttoError(
        "sandbox_secret_lost",
        `A secret file otto hid in ${root} was moved, and ${unreadable.slice(0, 3).join(", ")} cannot be read to find it again: nothing runs in the sandbox there.`,
        `Make the folder readable again (chmod u+rx ${path.join(root, unreadable[0] ?? "")}) or move the file back, then run the command again.`,
      );
    for (const rel of lost.values()) known.hidden.delete(rel);
    for (const [rel, id] of found) known.hidden.set(rel, id);
  }
  return [...known.hidden.keys()].map((rel) => path.join(root, ...rel.split("/")));
}
