import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/errors.ts";

/*
 * A git index read as data (gitformat-index(5), versions 2, 3 and 4), no git run: the tree and its
 * git directory are written by sandboxed code. A split index (`git update-index --split-index`)
 * keeps its entries in `sharedindex.<hash>` beside it and only the changes in the index file (the
 * `link` extension: the shared file's name and two EWAH bitmaps, deleted and replaced entries);
 * both are read and merged as git merges them, or what git sees (a gitlink) is not what otto sees.
 */

interface Entry {
  name: string;
  oid: string;
  gitlink: boolean;
}

interface Parsed {
  entries: Entry[];
  hashBytes: number;
  /** The `link` extension: the shared index's name, and its data with where its two bitmaps start (none in a fresh split). */
  link?: { base: string; data: Buffer; bitmaps?: { deleted: number; replaced: number } };
  /** The file's trailing object name (hex): what a split index names its shared index by. */
  trailer: string;
}

export interface GitIndex {
  /** Path → object id (hex). */
  entries: Map<string, string>;
  /** Paths of mode 160000: a nested repository's commit. */
  gitlinks: Set<string>;
  hashBytes: number;
}

/**
 * The index at `file` with its shared index merged in; "missing" when there is no file, undefined
 * when otto cannot read it as git would. Read with 20- and with 32-byte object names (SHA-1 and
 * SHA-256 repositories; only git's configuration says which): bytes that read both ways and say
 * different things are refused, or a gitlink read one way would hide from the other.
 */
export function readGitIndex(file: string): GitIndex | "missing" | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : undefined;
  }
  const [first, ...others] = [20, 32].flatMap((hash) => {
    const own = parseIndex(bytes, hash);
    const read = own && withShared(file, own);
    return read ? [read] : [];
  });
  return first && others.every((other) => sameIndex(first, other)) ? first : undefined;
}

/** Pure: the same paths with the same object names and the same gitlinks. */
function sameIndex(a: GitIndex, b: GitIndex): boolean {
  const key = (i: GitIndex) => JSON.stringify([[...i.entries].sort(), [...i.gitlinks].sort()]);
  return key(a) === key(b);
}

/** `own` with the shared index its `link` extension names merged in (git looks beside the index file: otto's callers read `<git dir>/index`). */
function withShared(file: string, own: Parsed): GitIndex | undefined {
  if (!own.link || /^0+$/.test(own.link.base)) return merged(own.entries, own.hashBytes);
  let shared: Parsed | undefined;
  try {
    shared = parseIndex(fs.readFileSync(path.join(path.dirname(file), `sharedindex.${own.link.base}`)), own.hashBytes);
  } catch {
    return undefined;
  }
  // git refuses a shared index whose trailing name is not the one linked, and one that links again.
  if (!shared || shared.link || shared.trailer !== own.link.base) return undefined;
  return mergeSplit(own, shared.entries);
}

/** Pure: the split index `own` applied to the shared index's entries, as git's merge_base_index does. */
function mergeSplit(own: Parsed, base: readonly Entry[]): GitIndex | undefined {
  const link = own.link;
  if (!link) return undefined;
  const entries: Array<Entry | undefined> = [...base];
  // A position past the shared index's entries makes git stop: so does otto.
  const bitmap = (at: number | undefined) => (at === undefined ? [] : readEwah(link.data, at, base.length)?.bits);
  const replaced = bitmap(link.bitmaps?.replaced);
  const deleted = bitmap(link.bitmaps?.deleted);
  if (!replaced || !deleted) return undefined;
  // Replaced entries come first in the split index, in the bitmap's order, with empty names (the base's name stays).
  for (const [i, pos] of replaced.entries()) {
    const from = own.entries[i];
    const to = base[pos];
    if (!from || !to || from.name !== "") return undefined;
    entries[pos] = { name: to.name, oid: from.oid, gitlink: from.gitlink };
  }
  for (const pos of deleted) entries[pos] = undefined;
  const added = own.entries.slice(replaced.length);
  if (added.some((e) => e.name === "")) return undefined;
  return merged([...entries.filter((e): e is Entry => e !== undefined), ...added], own.hashBytes);
}

/** Pure: entries in order, a later one of the same path replacing an earlier one. */
function merged(list: readonly Entry[], hashBytes: number): GitIndex {
  const entries = new Map<string, string>();
  const gitlinks = new Set<string>();
  for (const e of list) {
    entries.set(e.name, e.oid);
    if (e.gitlink) gitlinks.add(e.name);
    else gitlinks.delete(e.name);
  }
  return { entries, gitlinks, hashBytes };
}

/** Pure: an index file's entries and extensions, read with object names of `hash` bytes. */
function parseIndex(bytes: Buffer, hash: number): Parsed | undefined {
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const read = readEntries(bytes, version, bytes.readUInt32BE(8), hash);
  const rest = read && readExtensions(bytes, read.end, hash);
  return read && rest ? { entries: read.entries, hashBytes: hash, ...rest } : undefined;
}

function readEntries(bytes: Buffer, version: number, count: number, hash: number): { entries: Entry[]; end: number } | undefined {
  const entries: Entry[] = [];
  let at = 12;
  let previous: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = at;
    // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each): 40 bytes, then the object name and the flags.
    at += 40 + hash;
    if (at + 2 > bytes.length) return undefined;
    const oid = bytes.toString("hex", start + 40, start + 40 + hash);
    const gitlink = (bytes.readUInt32BE(start + 24) & 0o170000) === 0o160000;
    const flags = bytes.readUInt16BE(at);
    at += 2;
    // The extended flags (2 bytes), read whatever the version says, as git reads them.
    if (flags & 0x4000) at += 2;
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
    entries.push({ name: name.toString("utf8"), oid, gitlink });
  }
  return { entries, end: at };
}

/**
 * The extensions up to the trailing object name, as git walks them: while 8 bytes are left, a
 * signature and a size; the `link` one read. One that runs past the end ends the walk (git skips
 * an optional one so, and stops at a required one it cannot read, which leaves nothing to descend into).
 */
function readExtensions(bytes: Buffer, from: number, hash: number): Pick<Parsed, "link" | "trailer"> | undefined {
  const stop = bytes.length - hash;
  if (from > stop) return undefined;
  const out: Pick<Parsed, "link" | "trailer"> = { trailer: bytes.toString("hex", stop) };
  for (let at = from; at + 8 <= stop;) {
    const signature = bytes.toString("latin1", at, at + 4);
    const size = bytes.readUInt32BE(at + 4);
    const end = at + 8 + size;
    if (end > stop) return signature === "link" ? undefined : out;
    if (signature === "link") {
      const link = readLink(bytes.subarray(at + 8, end), hash);
      if (!link) return undefined;
      out.link = link;
    }
    at = end;
  }
  return out;
}

/** The `link` extension: the shared index's object name, then the delete and the replace bitmaps (absent in a fresh split). */
function readLink(data: Buffer, hash: number): NonNullable<Parsed["link"]> | undefined {
  if (data.length < hash) return undefined;
  const base = data.toString("hex", 0, hash);
  if (data.length === hash) return { base, data };
  const deleted = ewahEnd(data, hash);
  const replaced = deleted === undefined ? undefined : ewahEnd(data, deleted);
  if (deleted === undefined || replaced !== data.length) return undefined;
  return { base, data, bitmaps: { deleted: hash, replaced: deleted } };
}

/** Where the EWAH bitmap starting at `from` ends: bit count, word count, the 64-bit words, the last run-length word's position (4 bytes each but the words). */
function ewahEnd(data: Buffer, from: number): number | undefined {
  if (from + 8 > data.length) return undefined;
  const end = from + 8 + data.readUInt32BE(from + 4) * 8 + 4;
  return end > data.length ? undefined : end;
}

/**
 * The positions an EWAH bitmap (git's ewah/ewah_io.c, its extent checked by ewahEnd) sets, each
 * below `limit`, else undefined. Each run-length word says: bit 0 the run's bit, bits 1-32 how many
 * words of it, bits 33-63 how many literal words follow; a literal word's bit c is position 64·w + c.
 */
function readEwah(data: Buffer, from: number, limit: number): { bits: number[] } | undefined {
  const words = data.readUInt32BE(from + 4);
  const first = from + 8;
  const bits: number[] = [];
  let word = 0;
  let pos = 0;
  const high = (w: number) => data.readUInt32BE(first + w * 8);
  const low = (w: number) => data.readUInt32BE(first + w * 8 + 4);
  while (word < words) {
    const run = (low(word) >>> 1) + (high(word) & 1) * 2 ** 31;
    const literals = high(word) >>> 1;
    const set = (low(word) & 1) === 1;
    word++;
    if ((set && pos + run * 64 > limit) || word + literals > words) return undefined;
    if (set) for (let k = 0; k < run * 64; k++) bits.push(pos + k);
    pos += run * 64;
    for (let l = 0; l < literals; l++, word++, pos += 64) {
      for (let c = 0; c < 64; c++) if ((c < 32 ? low(word) >>> c : high(word) >>> (c - 32)) & 1) bits.push(pos + c);
    }
  }
  return bits.some((b) => b >= limit) ? undefined : { bits };
}

/**
 * The paths a git index tracks, its shared index included. Undefined when the file is missing or
 * not an index otto understands.
 */
export function readIndexPaths(indexFile: string): Set<string> | undefined {
  const index = readGitIndex(indexFile);
  return typeof index === "object" ? new Set(index.entries.keys()) : undefined;
}

/**
 * The paths of an index's gitlinks (mode 160000: a nested repository's commit), its shared index
 * included; none when there is no index. Throws `git_index_unreadable` when there is one otto
 * cannot read: git may read it, and a gitlink otto does not see makes the user's `git status`
 * descend into a nested repository a sandboxed command made and run its configuration.
 */
export function readIndexGitlinks(indexFile: string): Set<string> {
  const index = readGitIndex(indexFile);
  if (index === "missing") return new Set();
  if (!index)
    throw new OttoError(
      "git_index_unreadable",
      `otto cannot read the git index ${indexFile} (or the shared index it links to), so it cannot tell whether a command there added a nested repository: nothing runs in the sandbox there.`,
      `Have git write it again in its plain form (git update-index --no-split-index), then run the command again.`,
    );
  return index.gitlinks;
}

/**
 * What changes when the index does: the file's and every shared index's (`sharedindex.*` beside
 * it) inode, size, modification and change time. The change time cannot be set back, so a file
 * rewritten in place and `touch`ed to its old time still counts; a shared index rewritten in place
 * changes what git reads without touching the index file.
 */
export function indexStamp(indexFile: string): string {
  const stamp = (file: string): string => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : "missing";
  };
  let names: string[] = [];
  try {
    names = fs.readdirSync(path.dirname(indexFile)).filter((n) => n.startsWith("sharedindex."));
  } catch {
    // No folder: no index either.
  }
  return [stamp(indexFile), ...names.sort().map((n) => `${n}=${stamp(path.join(path.dirname(indexFile), n))}`)].join(" ");
}
