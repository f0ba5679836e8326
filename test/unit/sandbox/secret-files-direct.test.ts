import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readIndexPaths } from "../../../src/sandbox/git-index.ts";
import { findSecretFiles, forgetSecretFiles, isSecretName } from "../../../src/sandbox/secret-files.ts";
import { gitEnv } from "../../support/git.ts";

/*
 * Which of the user's files the sandbox hides, decided without running git in the tree
 * (secret-files.test.ts shows them hidden under real bubblewrap): names, the walk's limits,
 * the index read as bytes, what stays hidden.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) {
    forgetSecretFiles(root);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

function tree(files: Record<string, string> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-secret-direct-")));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const git = (root: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd: root,
    env: gitEnv({ GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@a", GIT_COMMITTER_NAME: "c", GIT_COMMITTER_EMAIL: "c@c" }),
    encoding: "utf8",
  });
const rel = (root: string, found: string[]) => found.map((f) => path.relative(root, f)).sort();

describe("isSecretName", () => {
  it("the conventional names, and not their stand-ins or public halves", () => {
    for (const name of [
      ".env",
      ".env.local",
      ".envrc",
      "tls.pem",
      "a.key",
      "b.p12",
      "c.pfx",
      "d.jks",
      "e.keystore",
      "id_rsa",
      "id_ed25519",
      "id_ecdsa_sk",
      "credentials.json",
      "service-account.json",
      "serviceaccount-prod.json",
      "service_account.json",
      ".npmrc",
      ".pypirc",
      ".netrc",
      ".git-credentials",
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of [
      "env",
      ".environment",
      "x.env",
      "id_rsa.pub",
      "my-credentials.json",
      ".env.example",
      "key.sample.pem",
      ".env.template",
      ".env.dist",
      "Service.pem.EXAMPLE",
      "a.pem.txt",
      "xid_rsa",
      "npmrc",
      "credentials.json.bak",
    ])
      expect(isSecretName(name), name).toBe(false);
  });
});

describe("findSecretFiles", () => {
  it("regular files with secret names, at any depth, not in the folders builds fill, not links", () => {
    const deep = ["a", "b", "c", "d", "e", "f", "g", "h"];
    const root = tree({
      ".env": "1",
      "app/config/.env.production": "2",
      "certs/tls.key": "3",
      [`${deep.join("/")}/.env`]: "4",
      [`${deep.join("/")}/i/.env`]: "5",
      "node_modules/pkg/.env": "6",
      "sub/vendor/.env": "7",
      ".env.example": "8",
    });
    fs.symlinkSync(path.join(root, ".env"), path.join(root, "linked.pem"));
    fs.mkdirSync(path.join(root, "folder.pem"));
    expect(rel(root, findSecretFiles(root))).toEqual([
      ".env",
      `${deep.join("/")}/.env`,
      `${deep.join("/")}/i/.env`,
      "app/config/.env.production",
      "certs/tls.key",
    ]);
  });

  it("a file the index tracks with its content on disk stays visible; tracked with other content, or with no index, it is hidden", () => {
    const root = tree({ ".env": "tracked\n", "fixtures/test.pem": "fixture\n", "changed.key": "old\n" });
    git(root, "init", "-q");
    git(root, "add", "-f", ".env", "fixtures/test.pem", "changed.key");
    fs.writeFileSync(path.join(root, "changed.key"), "new\n");
    fs.writeFileSync(path.join(root, "new.pem"), "x\n");
    expect(rel(root, findSecretFiles(root, path.join(root, ".git", "index")))).toEqual(["changed.key", "new.pem"]);
    const other = tree({ ".env": "x\n" });
    expect(rel(other, findSecretFiles(other))).toEqual([".env"]);
    const third = tree({ ".env": "x\n" });
    expect(rel(third, findSecretFiles(third, path.join(third, "no-index")))).toEqual([".env"]);
  });

  it("a SHA-256 repository's index counts too", () => {
    const root = tree({ ".env": "tracked\n", "b.pem": "b\n" });
    git(root, "init", "-q", "--object-format=sha256");
    git(root, "add", "-f", ".env");
    expect(rel(root, findSecretFiles(root, path.join(root, ".git", "index")))).toEqual(["b.pem"]);
  });

  it("what it decided holds for the process: an index entry added later shows nothing; forgetting the tree decides again", () => {
    const root = tree({ ".env": "secret\n" });
    git(root, "init", "-q");
    const index = path.join(root, ".git", "index");
    expect(rel(root, findSecretFiles(root, index))).toEqual([".env"]);
    git(root, "add", "-f", ".env");
    expect(rel(root, findSecretFiles(root, index))).toEqual([".env"]);
    // Through a link to the tree: the same tree.
    const link = path.join(path.dirname(root), `${path.basename(root)}-link`);
    fs.symlinkSync(root, link);
    try {
      expect(findSecretFiles(link, index)).toEqual([path.join(link, ".env")]);
      forgetSecretFiles(link);
      expect(findSecretFiles(root, index)).toEqual([]);
    } finally {
      fs.rmSync(link);
    }
  });

  it("a hidden file replaced by a link or a folder is lost; one deleted is forgotten", () => {
    const root = tree({ "a/.env": "1", "b/.env": "2" });
    expect(rel(root, findSecretFiles(root))).toEqual(["a/.env", "b/.env"]);
    fs.rmSync(path.join(root, "a", ".env"));
    fs.mkdirSync(path.join(root, "a", ".env"));
    fs.rmSync(path.join(root, "b"), { recursive: true });
    fs.mkdirSync(path.join(root, "b"));
    fs.symlinkSync("/etc/hostname", path.join(root, "b", ".env"));
    expect(rel(root, findSecretFiles(root))).toEqual([]);
  });

  it("a folder on the way to a hidden file replaced by a link: the file is looked for, not followed through the link", () => {
    const outside = tree({ "conf/.env": "outside\n" });
    const root = tree({ "conf/.env": "inside\n" });
    expect(rel(root, findSecretFiles(root))).toEqual(["conf/.env"]);
    fs.renameSync(path.join(root, "conf"), path.join(root, "dist"));
    fs.symlinkSync(path.join(outside, "conf"), path.join(root, "conf"));
    expect(rel(root, findSecretFiles(root))).toEqual(["dist/.env"]);
  });

  it.skipIf(process.getuid?.() === 0)("moved behind an unreadable folder: refused with the folder named and how to fix it", () => {
    const root = tree({ "config/.env": "1" });
    findSecretFiles(root);
    fs.mkdirSync(path.join(root, "locked"));
    fs.renameSync(path.join(root, "config"), path.join(root, "locked", "config"));
    fs.chmodSync(path.join(root, "locked"), 0o000);
    try {
      expect(() => findSecretFiles(root)).toThrow(
        expect.objectContaining({
          code: "sandbox_secret_lost",
          message: `A secret file otto hid in ${root} was moved, and locked cannot be read to find it again: nothing runs in the sandbox there.`,
          fix: `Make the folder readable again (chmod u+rx ${path.join(root, "locked")}) or move the file back, then run the command again.`,
        }),
      );
    } finally {
      fs.chmodSync(path.join(root, "locked"), 0o755);
    }
  });
});

describe("readIndexPaths", () => {
  it("index versions 2, 3 (extended flags) and 4 (prefix-compressed names)", () => {
    const root = tree({ "a.txt": "a", "dir/b.txt": "b", "dir/bb.txt": "bb", [`long/${"x".repeat(200)}.txt`]: "l" });
    git(root, "init", "-q");
    git(root, "add", "a.txt", "dir", "long");
    const index = path.join(root, ".git", "index");
    const all = ["a.txt", "dir/b.txt", "dir/bb.txt", `long/${"x".repeat(200)}.txt`];
    expect([...(readIndexPaths(index) ?? [])]).toEqual(all);
    fs.writeFileSync(path.join(root, "new.txt"), "n");
    git(root, "add", "-N", "new.txt");
    git(root, "update-index", "--index-version", "3");
    expect(fs.readFileSync(index).readUInt32BE(4)).toBe(3);
    expect([...(readIndexPaths(index) ?? [])]).toEqual([...all, "new.txt"].sort());
    git(root, "update-index", "--index-version", "4");
    expect(fs.readFileSync(index).readUInt32BE(4)).toBe(4);
    expect([...(readIndexPaths(index) ?? [])]).toEqual([...all, "new.txt"].sort());
  });

  it("not an index otto understands: undefined", () => {
    const root = tree({ "a.txt": "a" });
    git(root, "init", "-q");
    git(root, "add", "a.txt");
    const bytes = fs.readFileSync(path.join(root, ".git", "index"));
    const write = (name: string, data: Buffer) => {
      fs.writeFileSync(path.join(root, name), data);
      return readIndexPaths(path.join(root, name));
    };
    expect(readIndexPaths(path.join(root, "missing"))).toBeUndefined();
    expect(write("short", bytes.subarray(0, 11))).toBeUndefined();
    expect(write("magic", Buffer.concat([Buffer.from("XIRC"), bytes.subarray(4)]))).toBeUndefined();
    const v = (n: number) => {
      const copy = Buffer.from(bytes);
      copy.writeUInt32BE(n, 4);
      return copy;
    };
    expect(write("v1", v(1))).toBeUndefined();
    expect(write("v5", v(5))).toBeUndefined();
    expect(write("cut", bytes.subarray(0, 12 + 40 + 20 + 1))).toBeUndefined();
    const count = Buffer.from(bytes);
    count.writeUInt32BE(2, 8);
    expect(write("count", count)).toBeUndefined();
    const header = Buffer.from(bytes.subarray(0, 12));
    header.writeUInt32BE(0, 8);
    // git stops at an index shorter than its header and trailing object name.
    expect(write("no-trailer", header)).toBeUndefined();
    expect([...(write("empty", Buffer.concat([header, Buffer.alloc(20)])) ?? ["x"])]).toEqual([]);
  });
});
