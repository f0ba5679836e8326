import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { indexStamp, readGitIndex, readIndexGitlinks, readIndexPaths } from "../../../src/sandbox/git-index.ts";
import { gitEnv } from "../../support/git.ts";

/*
 * The index as git reads it (git-index.ts), split indexes included: what real git writes with
 * `--split-index` (the entries in `sharedindex.<hash>`, the changes as deleted and replaced
 * positions in EWAH bitmaps, new entries after them) reads as `git ls-files -s` lists it, and an
 * index otto cannot read is refused, not taken for one without gitlinks.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

function repo(format = "sha1", files = 400): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-index-")));
  roots.push(root);
  git(root, "init", "-q", `--object-format=${format}`);
  // Keep changes in the split index whatever their share (git would write a new shared index past 20 %).
  git(root, "config", "splitIndex.maxPercentChange", "100");
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(root, `a${String(i).padStart(3, "0")}`), `${i}\n`);
  git(root, "add", ".");
  return root;
}

const git = (root: string, ...args: string[]) => execFileSync("git", args, { cwd: root, env: gitEnv(), encoding: "utf8" });
const index = (root: string) => path.join(root, ".git", "index");
const shared = (root: string) => fs.readdirSync(path.join(root, ".git")).filter((n) => n.startsWith("sharedindex."));

/** What git lists, as "mode oid path", sorted. */
function listed(root: string): string[] {
  return git(root, "ls-files", "-s")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/ 0\t/, " "))
    .sort();
}

/** What otto reads, in the same form. */
function read(root: string): string[] {
  const idx = readGitIndex(index(root));
  if (typeof idx !== "object") throw new Error(`unreadable: ${String(idx)}`);
  return [...idx.entries].map(([name, oid]) => `${idx.gitlinks.has(name) ? "160000" : "100644"} ${oid} ${name}`).sort();
}

function gitlink(root: string, name: string): void {
  git(root, "update-index", "--add", "--cacheinfo", `160000,${git(root, "hash-object", "a000").trim()},${name}`);
}

describe("a split index reads as git reads it", () => {
  for (const [format, version] of [
    ["sha1", "2"],
    ["sha1", "4"],
    ["sha256", "3"],
  ] as const) {
    it(`${format}, version ${version}: deleted runs and single entries, replaced entries (one made a gitlink), entries added after`, () => {
      const root = repo(format);
      git(root, "update-index", "--index-version", version);
      git(root, "update-index", "--split-index");
      expect(shared(root)).toHaveLength(1);
      expect(read(root)).toEqual(listed(root));
      // 200 consecutive positions (whole 64-bit runs) and a few apart.
      git(root, "rm", "-q", "--cached", ...Array.from({ length: 200 }, (_, i) => `a${100 + i}`), "a003", "a398");
      for (const n of ["a005", "a007", "a399"]) fs.writeFileSync(path.join(root, n), "changed\n");
      git(root, "add", "a005", "a007", "a399");
      gitlink(root, "a009");
      gitlink(root, "sub/new");
      fs.writeFileSync(path.join(root, "b"), "new\n");
      git(root, "add", "b");
      expect(shared(root)).toHaveLength(1);
      expect(read(root)).toEqual(listed(root));
      expect([...readIndexGitlinks(index(root))].sort()).toEqual(["a009", "sub/new"]);
    });
  }

  it("a gitlink only the shared index holds is seen (the split made after it was added)", () => {
    const root = repo("sha1", 3);
    gitlink(root, "vendorlib");
    git(root, "update-index", "--split-index");
    expect([...readIndexGitlinks(index(root))]).toEqual(["vendorlib"]);
    // A gitlink the split index deletes is gone; made plain again, the index reads the same.
    git(root, "rm", "-q", "--cached", "vendorlib");
    expect([...readIndexGitlinks(index(root))]).toEqual([]);
    git(root, "update-index", "--no-split-index");
    expect(read(root)).toEqual(listed(root));
  });

  it("a shared index missing, or not the one linked, or linking again, or a bitmap past its entries: refused, as git stops there", () => {
    const root = repo("sha1", 60);
    git(root, "update-index", "--split-index");
    git(root, "rm", "-q", "--cached", "a001");
    const [name] = shared(root);
    const file = path.join(root, ".git", name ?? "");
    const good = fs.readFileSync(file);
    const own = fs.readFileSync(index(root));
    const refused = () => expect(() => readIndexGitlinks(index(root))).toThrow(/cannot read the git index/);
    // Its trailing name is not the one the link names.
    const other = Buffer.from(good);
    other[other.length - 1] = (other[other.length - 1] ?? 0) ^ 1;
    fs.writeFileSync(file, other);
    refused();
    // Gone.
    fs.rmSync(file);
    refused();
    // It links a shared index itself.
    fs.writeFileSync(file, good);
    expect(readIndexGitlinks(index(root))).toEqual(new Set());
    const link = own.indexOf("link");
    const relinked = Buffer.concat([
      good.subarray(0, good.length - 20),
      own.subarray(link, own.length - 20),
      good.subarray(good.length - 20),
    ]);
    fs.writeFileSync(file, relinked);
    refused();
    fs.writeFileSync(file, good);
    // The delete bitmap's one literal word with bit 63 set (past 60 entries); its end cut short; garbage after it.
    const at = link + 8 + 20;
    const past = Buffer.from(own);
    past.writeUInt32BE(0x80000000, at + 8 + 8);
    fs.writeFileSync(index(root), past);
    refused();
    const size = own.readUInt32BE(link + 4);
    const cut = Buffer.from(own);
    cut.writeUInt32BE(size - 1, link + 4);
    fs.writeFileSync(index(root), cut);
    refused();
    fs.writeFileSync(index(root), own);
    expect(read(root)).toEqual(listed(root));
  });

  it("a replaced entry with a name of its own, or an added one without: refused, as git stops there", () => {
    const root = repo("sha1", 3);
    git(root, "update-index", "--split-index");
    fs.writeFileSync(path.join(root, "a001"), "changed\n");
    git(root, "add", "a001");
    const own = fs.readFileSync(index(root));
    // git writes the changed entries as replacements (empty names): give the first a name, or take the replacement bits away (added entries without a name).
    expect(own.readUInt16BE(12 + 60) & 0xfff).toBe(0);
    // 62 bytes, the name and its NUL padded to 64: "x" fits in the same bytes.
    const named = Buffer.from(own);
    named.writeUInt16BE(1, 12 + 60);
    named[12 + 62] = 0x78;
    fs.writeFileSync(index(root), named);
    expect(() => readIndexGitlinks(index(root))).toThrow(/cannot read/);
    const link = own.indexOf("link");
    const replace = link + 8 + 20 + (12 + own.readUInt32BE(link + 8 + 20 + 4) * 8);
    const none = Buffer.from(own);
    none.writeUInt32BE(0, replace + 8 + 8 + 4);
    fs.writeFileSync(index(root), none);
    expect(() => readIndexGitlinks(index(root))).toThrow(/cannot read/);
  });
});

describe("EWAH bitmaps written by hand", () => {
  /** The split index of `root` with its delete bitmap replaced by `words` (pairs of 32-bit halves: high, low). */
  function withDeleteBitmap(root: string, words: Array<[number, number]>): void {
    const own = fs.readFileSync(index(root));
    const link = own.indexOf("link");
    const size = own.readUInt32BE(link + 4);
    const data = own.subarray(link + 8, link + 8 + size);
    const deletedEnd = 20 + 12 + data.readUInt32BE(20 + 4) * 8;
    const bitmap = Buffer.alloc(12 + words.length * 8);
    bitmap.writeUInt32BE(words.length * 64, 0);
    bitmap.writeUInt32BE(words.length, 4);
    for (const [i, [high, low]] of words.entries()) {
      bitmap.writeUInt32BE(high, 8 + i * 8);
      bitmap.writeUInt32BE(low, 12 + i * 8);
    }
    const linked = Buffer.concat([data.subarray(0, 20), bitmap, data.subarray(deletedEnd)]);
    const header = Buffer.alloc(8);
    header.write("link", 0, "latin1");
    header.writeUInt32BE(linked.length, 4);
    const rest = own.subarray(link + 8 + size, own.length - 20);
    fs.writeFileSync(index(root), Buffer.concat([own.subarray(0, link), header, linked, rest, Buffer.alloc(20)]));
  }

  it("a run of set bits deletes 64 entries a word, then a literal word's bits; a position past the entries is refused", () => {
    const root = repo("sha1", 130);
    git(root, "update-index", "--split-index");
    // One run word (bit set, one word long, one literal after it), then the literal with bit 1: positions 0-63 and 65.
    withDeleteBitmap(root, [
      [2, 3],
      [0, 2],
    ]);
    const names = read(root)
      .map((line) => line.split(" ")[2])
      .sort();
    expect(names).toEqual(["a064", ...Array.from({ length: 64 }, (_, i) => `a${String(66 + i).padStart(3, "0")}`)]);
    expect(read(root)).toEqual(listed(root));
    // A run of unset bits 2^31 words long (its length's high bit in the word's upper half), then bit 0: far past 130 entries.
    withDeleteBitmap(root, [
      [3, 0],
      [0, 1],
    ]);
    expect(() => readIndexGitlinks(index(root))).toThrow(/cannot read/);
    // Literal words the run word promises and the bitmap does not hold.
    withDeleteBitmap(root, [[4, 0]]);
    expect(() => readIndexGitlinks(index(root))).toThrow(/cannot read/);
  });
});

describe("the size of object names", () => {
  it("bytes that read as an index with 20- and with 32-byte names, saying different things, are refused", () => {
    // One v2 entry, a gitlink: with 20-byte names its name starts at 62 and is 269 bytes long; with
    // 32-byte names its flags (0x0101) lie in that name and its name starts at 74, 257 bytes long.
    const entry = Buffer.alloc(336);
    entry.writeUInt32BE(0o160000, 24);
    entry.writeUInt16BE(269, 60);
    entry.fill(0x61, 62, 331);
    entry.writeUInt16BE(0x0101, 72);
    const header = Buffer.from("DIRC0000\0\0\0\x01", "latin1");
    header.writeUInt32BE(2, 4);
    // 32 bytes after the entry: the trailing name with 32-byte names; with 20-byte names an
    // optional extension ("ZZZZ") running past the end first, which git skips.
    const tail = Buffer.alloc(32, 0xff);
    tail.write("ZZZZ", 0, "latin1");
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-index-")));
    roots.push(root);
    const file = path.join(root, "index");
    fs.writeFileSync(file, Buffer.concat([header, entry, tail]));
    expect(() => readIndexGitlinks(file)).toThrow(/cannot read the git index/);
    // Read one way only (the 32-byte reading broken by a name length of 258), it is an index with one gitlink.
    entry.writeUInt16BE(0x0102, 72);
    fs.writeFileSync(file, Buffer.concat([header, entry, tail]));
    expect([...readIndexGitlinks(file)]).toEqual(["a".repeat(10) + "\x01\x02" + "a".repeat(257)]);
    // Read both ways, no gitlink either way, but different paths: refused all the same.
    entry.writeUInt16BE(0x0101, 72);
    entry.writeUInt32BE(0o100644, 24);
    fs.writeFileSync(file, Buffer.concat([header, entry, tail]));
    expect(readIndexPaths(file)).toBeUndefined();
    // An empty index read both ways says the same: nothing.
    fs.writeFileSync(file, Buffer.concat([header.subarray(0, 8), Buffer.alloc(4), Buffer.alloc(32)]));
    expect(readIndexPaths(file)).toEqual(new Set());
  });
});

describe("indexStamp", () => {
  it("changes when the index or a shared index is rewritten in place and touched back to its old times", () => {
    const root = repo("sha1", 3);
    git(root, "update-index", "--split-index");
    const ref = path.join(root, "ref");
    for (const file of [index(root), path.join(root, ".git", shared(root)[0] ?? "")]) {
      const before = indexStamp(index(root));
      execFileSync("touch", ["-r", file, ref]);
      const bytes = fs.readFileSync(file);
      fs.writeFileSync(file, bytes);
      execFileSync("touch", ["-r", ref, file]);
      const stat = fs.statSync(file);
      expect(`${stat.size}:${stat.mtimeMs}`).toBe(`${bytes.length}:${fs.statSync(ref).mtimeMs}`);
      expect(indexStamp(index(root))).not.toBe(before);
    }
    expect(indexStamp(path.join(root, "no", "index"))).toBe("missing");
  });
});
