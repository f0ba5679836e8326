import fs from "node:fs";
import path from "node:path";
import { SKIPPED_DIRS } from "../core/skipped-dirs.ts";

/*
 * The user's own secrets in a work tree: a `.env` beside the code, a TLS key, a service account's
 * JSON. They are not the repository's (git ignores them, or they were never added), so a sandboxed
 * command does not see them. Tracked files stay visible: they are in the repository's history
 * anyway (readable with `git show`), a project's test fixtures are often keys and certificates,
 * and hiding a tracked file would show it emptied, which a `git commit -a` would record.
 *
 * Found without running git (the tree is untrusted): a bounded walk of the tree that skips the
 * folders packages and builds fill, and the index read as data for what is tracked.
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

/** How far a walk goes: a tree bigger than this is searched only this far (documented in security.md). */
const WALK_LIMITS = { depth: 8, entries: 20_000 };

export function isSecretName(name: string): boolean {
  return !STAND_IN.test(name) && SECRET_NAME.some((re) => re.test(name));
}

/**
 * The absolute paths of secret-like files under `root` that the index at `indexFile` does not
 * track. An index otto cannot read counts as tracking nothing (the files stay hidden).
 */
export function findSecretFiles(root: string, indexFile?: string): string[] {
  const found: string[] = [];
  let budget = WALK_LIMITS.entries;
  const walk = (dir: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget < 0) return;
      const file = path.join(dir, entry.name);
      // Only regular files: a symlink named `.env` points elsewhere, and mounting over it would follow it.
      if (entry.isFile() && isSecretName(entry.name)) found.push(file);
      else if (entry.isDirectory() && depth < WALK_LIMITS.depth && !SKIPPED_DIRS.has(entry.name)) walk(file, depth + 1);
    }
  };
  walk(root, 0);
  if (found.length === 0) return found;
  const tracked = indexFile ? readIndexPaths(indexFile) : undefined;
  return found.filter((file) => !tracked?.has(path.relative(root, file).split(path.sep).join("/")));
}

/**
 * The paths a git index tracks (versions 2, 3 and 4; gitformat-index(5)), read as bytes: no git
 * runs. Undefined when the file is missing or not an index otto understands.
 */
export function readIndexPaths(indexFile: string): Set<string> | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(indexFile);
  } catch {
    return undefined;
  }
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = bytes.readUInt32BE(8);
  // SHA-1 repositories have 20-byte object names, SHA-256 ones 32: the first entry's flags tell which fits.
  for (const hash of [20, 32]) {
    const paths = readEntries(bytes, version, count, hash);
    if (paths) return paths;
  }
  return undefined;
}

function readEntries(bytes: Buffer, version: number, count: number, hash: number): Set<string> | undefined {
  const paths = new Set<string>();
  let at = 12;
  let previous: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = at;
    // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each): 40 bytes, then the object name and the flags.
    at += 40 + hash;
    if (at + 2 > bytes.length) return undefined;
    const flags = bytes.readUInt16BE(at);
    at += 2;
    if (flags & 0x4000) at += version >= 3 ? 2 : 0;
    let strip = 0;
    if (version === 4) {
      // The name is the previous one less N bytes (N a varint), then the bytes up to a NUL.
      let byte: number;
      let first = true;
      do {
        if (at >= bytes.length) return undefined;
        byte = bytes[at++] ?? 0;
        strip = first ? byte & 0x7f : ((strip + 1) << 7) | (byte & 0x7f);
        first = false;
      } while (byte & 0x80);
      if (strip > previous.length) return undefined;
    }
    const end = bytes.indexOf(0, at);
    if (end < 0) return undefined;
    const name =
      version === 4 ? Buffer.concat([previous.subarray(0, previous.length - strip), bytes.subarray(at, end)]) : bytes.subarray(at, end);
    // The flags hold the name's length (0xfff when longer): a wrong guess of the hash size shows here.
    const length = flags & 0xfff;
    if (length < 0xfff && name.length !== length) return undefined;
    // Up to version 3 entries are padded with NULs to a multiple of 8 bytes.
    at = version === 4 ? end + 1 : start + Math.ceil((end - start + 1) / 8) * 8;
    previous = name;
    paths.add(name.toString("utf8"));
  }
  return paths;
}
