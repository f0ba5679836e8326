import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readIndexGitlinks, readIndexPaths } from "../../../src/sandbox/git-index.ts";
import { findSecretFiles, forgetSecretFiles, isSecretName } from "../../../src/sandbox/secret-files.ts";
import { gitEnv } from "../../support/git.ts";

/*
 * The edges of the sandbox's secret-file decision (secret-files-direct.test.ts has the common
 * cases): index bytes written by hand where git would not write them, the size limit of a tracked
 * file otto hashes, and a hidden file moved where the search for it must look, or must not.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) {
    forgetSecretFiles(root);
    // GNU rm walks a tree deeper than PATH_MAX; fs.rmSync does not.
    execFileSync("rm", ["-rf", root]);
  }
});

function tree(files: Record<string, string> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-secret-edges-")));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const rel = (root: string, found: string[]) => found.map((f) => path.relative(root, f)).sort();

/** One index entry as bytes: `name` is the whole name (v2, v3) or the part after the `strip` bytes kept from the previous one (v4). */
interface RawEntry {
  name: string;
  mode?: number;
  /** The name length the flags hold (the name's, up to 0xfff, unless given). */
  length?: number;
  extended?: boolean;
  strip?: number;
  /** Leave out the NUL (and padding) after the name. */
  unterminated?: boolean;
}

function indexBytes(version: number, entries: RawEntry[]): Buffer {
  const header = Buffer.alloc(12);
  header.write("DIRC", 0, "latin1");
  header.writeUInt32BE(version, 4);
  header.writeUInt32BE(entries.length, 8);
  const parts = [header];
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const stat = Buffer.alloc(40);
    stat.writeUInt32BE(e.mode ?? 0o100644, 24);
    const flags = Buffer.alloc(e.extended ? 4 : 2);
    flags.writeUInt16BE((e.length ?? Math.min(name.length, 0xfff)) | (e.extended ? 0x4000 : 0));
    const head = Buffer.concat([stat, Buffer.alloc(20, 0xab), flags]);
    if (version === 4) parts.push(head, Buffer.from([e.strip ?? 0]), name, Buffer.alloc(e.unterminated ? 0 : 1));
    else {
      const size = head.length + name.length;
      parts.push(head, name, Buffer.alloc(e.unterminated ? 0 : Math.ceil((size + 1) / 8) * 8 - size));
    }
  }
  // The trailing object name (git's checksum; not checked, as git does not by default).
  return Buffer.concat([...parts, Buffer.alloc(20, 0xcd)]);
}

function readWritten(bytes: Buffer): string[] | undefined {
  const file = path.join(tree(), "index");
  fs.writeFileSync(file, bytes);
  const paths = readIndexPaths(file);
  return paths && [...paths];
}

describe("readIndexPaths on index bytes written by hand", () => {
  it("the extended flags are read whatever the version says, as git reads them", () => {
    expect(readWritten(indexBytes(2, [{ name: "a/.env", extended: true }, { name: "b.pem" }]))).toEqual(["a/.env", "b.pem"]);
    expect(readWritten(indexBytes(3, [{ name: "a/.env", extended: true }, { name: "b.pem" }]))).toEqual(["a/.env", "b.pem"]);
  });

  it("a name of 0xfff bytes or more is read to its NUL; a shorter name must have the length its flags say", () => {
    const long = `deep/${"x".repeat(5000)}.pem`;
    expect(readWritten(indexBytes(2, [{ name: long }, { name: "z.key" }]))).toEqual([long, "z.key"]);
    expect(readWritten(indexBytes(2, [{ name: "a.pem", length: 4 }]))).toBeUndefined();
  });

  it("an entry without the NUL that ends its name is no index", () => {
    expect(readWritten(indexBytes(2, [{ name: "a/.env", length: 0xfff, unterminated: true }]))).toBeUndefined();
    expect(readWritten(indexBytes(4, [{ name: "a/.env", unterminated: true }]))).toBeUndefined();
  });

  it("version 4: a name keeps up to the whole previous name, never more", () => {
    expect(readWritten(indexBytes(4, [{ name: "abc" }, { name: "xyz", strip: 3 }, { name: "/.env", strip: 0, length: 8 }]))).toEqual([
      "abc",
      "xyz",
      "xyz/.env",
    ]);
    // Five bytes off a name of three: with the end counted from the back it would read "ad".
    expect(readWritten(indexBytes(4, [{ name: "abc" }, { name: "d", strip: 5, length: 2 }]))).toBeUndefined();
  });

  it("gitlinks are the entries of mode 160000", () => {
    const file = path.join(tree(), "index");
    fs.writeFileSync(file, indexBytes(2, [{ name: "lib/sub", mode: 0o160000 }, { name: "lib/x.pem" }, { name: "tool", mode: 0o160000 }]));
    expect([...readIndexGitlinks(file)]).toEqual(["lib/sub", "tool"]);
    // No index: nothing tracked, no gitlink. One otto cannot read: it cannot say, and refuses.
    expect([...readIndexGitlinks(path.join(path.dirname(file), "missing"))]).toEqual([]);
    fs.writeFileSync(file, indexBytes(2, [{ name: "a.pem", length: 4 }]));
    expect(() => readIndexGitlinks(file)).toThrow(/cannot read the git index .*nothing runs in the sandbox there/);
  });
});

describe("isSecretName: the whole name, not a part of it", () => {
  it("a sidecar or a longer name is not the secret; a stand-in is one only by its ending", () => {
    // REUSE's license sidecars, and names that only contain a secret's name.
    for (const name of [".envrc.license", "project.envrc", ".npmrc.license", "project.npmrc", "service-account.json.license", "id_rsa.pub"])
      expect(isSecretName(name), name).toBe(false);
    for (const name of [".env.distant", "id_rsa.pub.key", "id_ed25519.public-notes"]) expect(isSecretName(name), name).toBe(true);
  });
});

describe("findSecretFiles: edges", () => {
  const git = (root: string, ...args: string[]) => execFileSync("git", args, { cwd: root, env: gitEnv(), encoding: "utf8" });

  it("a tracked file of 1 MiB is hashed and stays visible; one byte more is hidden without reading it", () => {
    const mib = 1024 * 1024;
    const root = tree({ "fixtures/exact.pem": "a".repeat(mib), "fixtures/over.pem": "b".repeat(mib + 1) });
    git(root, "init", "-q");
    git(root, "add", "-f", "fixtures");
    expect(rel(root, findSecretFiles(root, path.join(root, ".git", "index")))).toEqual(["fixtures/over.pem"]);
  });

  it("a hidden file deleted is forgotten", () => {
    const root = tree({ "a/.env": "1", "b/.env": "2" });
    expect(rel(root, findSecretFiles(root))).toEqual(["a/.env", "b/.env"]);
    fs.rmSync(path.join(root, "a", ".env"));
    expect(rel(root, findSecretFiles(root))).toEqual(["b/.env"]);
  });

  it("a folder moved and linked back under its old name: the file is hidden where it is, not through the link", () => {
    const root = tree({ "conf/.env": "1", "README.md": "r" });
    expect(rel(root, findSecretFiles(root))).toEqual(["conf/.env"]);
    fs.renameSync(path.join(root, "conf"), path.join(root, "node_modules"));
    fs.symlinkSync("node_modules", path.join(root, "conf"));
    expect(rel(root, findSecretFiles(root))).toEqual(["node_modules/.env"]);
  });

  it("the search for a moved file skips the tree's own .git, not a nested one, and takes no other file", () => {
    const root = tree({ "conf/.env": "1", "other/.env": "2", "README.md": "r", "dist/notes.txt": "n" });
    fs.mkdirSync(path.join(root, ".git"));
    fs.mkdirSync(path.join(root, "vendor/lib/.git"), { recursive: true });
    expect(rel(root, findSecretFiles(root))).toEqual(["conf/.env", "other/.env"]);
    fs.renameSync(path.join(root, "conf"), path.join(root, "vendor/lib/.git/conf"));
    fs.renameSync(path.join(root, "other"), path.join(root, ".git/other"));
    expect(rel(root, findSecretFiles(root))).toEqual(["vendor/lib/.git/conf/.env"]);
  });

  /** Folders nested past PATH_MAX: readdir fails there, for root too (a session can make them without a long path: each folder wrapped from the top). */
  function tooDeep(root: string, prefix: string, inner?: string): string {
    let top = inner ?? `${prefix}-leaf`;
    if (!inner) fs.mkdirSync(path.join(root, top));
    const chain = [top];
    for (let i = 0; i < 22; i++) {
      const wrapper = `${prefix}${i}-${"w".repeat(200)}`;
      fs.mkdirSync(path.join(root, wrapper));
      fs.renameSync(path.join(root, top), path.join(root, wrapper, top));
      top = wrapper;
      chain.unshift(wrapper);
    }
    return chain.join("/");
  }

  it("moved past what otto can read: refused, with the first three such folders named and how to fix it", () => {
    const root = tree({ "config/.env": "1" });
    expect(rel(root, findSecretFiles(root))).toEqual(["config/.env"]);
    const chains = [tooDeep(root, "a", "config"), tooDeep(root, "b"), tooDeep(root, "c"), tooDeep(root, "d")];
    let error: { code?: string; message?: string; fix?: string } | undefined;
    try {
      findSecretFiles(root);
    } catch (e) {
      error = e as typeof error;
    }
    expect(error?.code).toBe("sandbox_secret_lost");
    const named =
      /^A secret file otto hid in (.+) was moved, and (.+) cannot be read to find it again: nothing runs in the sandbox there\.$/.exec(
        error?.message ?? "",
      );
    expect(named?.[1]).toBe(root);
    const folders = named?.[2]?.split(", ") ?? [];
    expect(folders).toHaveLength(3);
    for (const folder of folders) {
      expect(chains.some((c) => c.startsWith(`${folder}/`))).toBe(true);
      expect(path.join(root, folder).length).toBeGreaterThan(3800);
    }
    expect(error?.fix).toBe(
      `Make the folder readable again (chmod u+rx ${path.join(root, folders[0] ?? "")}) or move the file back, then run the command again.`,
    );
  });

  it("a folder otto cannot read refuses nothing when the moved file was found elsewhere", () => {
    const root = tree({ "config/.env": "1" });
    expect(rel(root, findSecretFiles(root))).toEqual(["config/.env"]);
    tooDeep(root, "a");
    fs.mkdirSync(path.join(root, "dist"));
    fs.renameSync(path.join(root, "config"), path.join(root, "dist/config"));
    expect(rel(root, findSecretFiles(root))).toEqual(["dist/config/.env"]);
  });
});
