import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OttoError } from "../../../src/core/index.ts";
import { runGit } from "../../../src/workspace/index.ts";
import { blobId } from "../../../src/workspace/ignored-content.ts";
import { parseBatch, scanPushedMetadata } from "../../../src/workspace/pushed-metadata.ts";
import type { GitRun } from "../../../src/workspace/snapshot.ts";
import { gitEnv, removeAfterTest } from "../../support/git.ts";

/*
 * scanPushedMetadata on its own (push-scan.test.ts drives it through otto's push): which objects it
 * reads besides the commits, what it finds in them, and a read that is not whole.
 */

const SECRET = "known-secret-value-0123456789";
const run: GitRun = (args, options) => runGit(args, { ...options, env: gitEnv() });
const refuse = (why: string) => new OttoError("push_refused", why);

function repo(format: "sha1" | "sha256" = "sha1") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-pushed-metadata-"));
  removeAfterTest(dir);
  const git = (args: string[], input?: string): string =>
    execFileSync("git", args, {
      cwd: dir,
      env: gitEnv({ GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@a", GIT_COMMITTER_NAME: "c", GIT_COMMITTER_EMAIL: "c@c" }),
      encoding: "utf8",
      ...(input !== undefined ? { input } : {}),
    }).trim();
  git(["init", "-q", "-b", "main", `--object-format=${format}`]);
  const commit = (message: string): string => {
    git(["commit", "-q", "--allow-empty", "--allow-empty-message", "-m", message]);
    return git(["rev-parse", "HEAD"]);
  };
  return { dir, git, commit };
}

describe("scanPushedMetadata", () => {
  it("no commits, nothing read", async () => {
    const calls: string[][] = [];
    const git: GitRun = (args, o) => (calls.push(args), run(args, o));
    expect(await scanPushedMetadata(git, "/nonexistent", { commits: [], needles: [SECRET], ignoredBlobs: undefined }, refuse)).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("finds a known secret in a commit's message, an annotated tag or a note on a pushed commit; not on another commit, nor in a light tag", async () => {
    const r = repo();
    const base = r.commit("base");
    const clean = r.commit("clean");
    const leaky = r.commit(`fix\n\n${SECRET}`);
    r.git(["tag", "-a", "v1", "-m", `tag ${SECRET}`, clean]);
    r.git(["tag", "-a", "old", "-m", `tag ${SECRET}`, base]);
    r.git(["tag", "light", clean]);
    r.git(["notes", "add", "-m", `note ${SECRET}`, clean]);
    r.git(["notes", "--ref", "refs/notes/review", "add", "-m", `review ${SECRET}`, clean]);
    r.git(["notes", "add", "-m", `note ${SECRET}`, base]);
    const found = await scanPushedMetadata(run, r.dir, { commits: [clean, leaky], needles: [SECRET], ignoredBlobs: undefined }, refuse);
    expect(found).toStrictEqual([
      { what: `commit ${leaky.slice(0, 7)}`, secret: true },
      { what: `tag v1 (on ${clean.slice(0, 7)})`, secret: true },
      { what: `note on ${clean.slice(0, 7)} (refs/notes/commits)`, secret: true },
      { what: `note on ${clean.slice(0, 7)} (refs/notes/review)`, secret: true },
    ]);
    expect(
      await scanPushedMetadata(run, r.dir, { commits: [clean], needles: ["absent-secret-value"], ignoredBlobs: undefined }, refuse),
    ).toEqual([]);
  });

  it("a message or a note that is an ignored file's content is named with that file; an empty message is not", async () => {
    const r = repo();
    const env = "API_KEY=abc\n";
    const copied = r.commit(env);
    r.git(["notes", "add", "-m", "NOTE=1", copied]);
    const empty = r.commit("");
    const ignoredBlobs = {
      [blobId(Buffer.from(env))]: ".env",
      [blobId(Buffer.from("NOTE=1\n"))]: "notes.env",
      [blobId(Buffer.alloc(0))]: "empty.env",
    };
    const found = await scanPushedMetadata(run, r.dir, { commits: [copied, empty], needles: [], ignoredBlobs }, refuse);
    expect(found).toEqual([
      { what: `commit ${copied.slice(0, 7)}`, secret: false, copies: ".env" },
      { what: `note on ${copied.slice(0, 7)} (refs/notes/commits)`, secret: false, copies: "notes.env" },
    ]);
  });

  it("in a SHA-256 repository, blob ids are SHA-256", async () => {
    const r = repo("sha256");
    const commit = r.commit("SECRET=1");
    expect(commit).toHaveLength(64);
    const found = await scanPushedMetadata(
      run,
      r.dir,
      { commits: [commit], needles: [], ignoredBlobs: { [blobId(Buffer.from("SECRET=1\n"), "sha256")]: ".env" } },
      refuse,
    );
    expect(found).toEqual([{ what: `commit ${commit.slice(0, 7)}`, secret: false, copies: ".env" }]);
  });

  it("a message in another encoding than UTF-8 is read as bytes", async () => {
    const r = repo();
    const file = path.join(r.dir, "msg");
    fs.writeFileSync(file, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    r.git(["-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "--allow-empty", "-F", file]);
    const commit = r.git(["rev-parse", "HEAD"]);
    const found = await scanPushedMetadata(
      run,
      r.dir,
      { commits: [commit], needles: [], ignoredBlobs: { [blobId(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))]: ".env" } },
      refuse,
    );
    expect(found).toStrictEqual([{ what: `commit ${commit.slice(0, 7)}`, secret: false, copies: ".env" }]);
  });

  it("a cat-file that exits non-zero, or answers for fewer objects than asked, refuses even when what it printed parses", async () => {
    const r = repo();
    const a = r.commit("a");
    const b = r.commit("b");
    const exits: GitRun = async (args, o) => ({ ...(await run(args, o)), ...(args[0] === "cat-file" ? { exitCode: 1 } : {}) });
    await expect(scanPushedMetadata(exits, r.dir, { commits: [a, b], needles: [], ignoredBlobs: undefined }, refuse)).rejects.toThrow(
      /^git could not read the commits, tags and notes to push whole/,
    );
    const fewer: GitRun = async (args, o) => (args[0] === "cat-file" ? run(args, { ...o, input: `${a}\n` }) : run(args, o));
    await expect(scanPushedMetadata(fewer, r.dir, { commits: [a, b], needles: [], ignoredBlobs: undefined }, refuse)).rejects.toThrow(
      /^git could not read the commits, tags and notes to push whole/,
    );
  });

  it("an object git cannot read refuses, saying so", async () => {
    const r = repo();
    const real = r.commit("x");
    const err = await scanPushedMetadata(
      run,
      r.dir,
      { commits: [real, "0".repeat(40)], needles: [], ignoredBlobs: undefined },
      refuse,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OttoError);
    expect((err as Error).message).toMatch(/^git could not read the commits, tags and notes to push whole \(exit 0\)$/);
    const failing: GitRun = async (args, o) =>
      args[0] === "cat-file" ? { exitCode: 128, stdout: "", stderr: "fatal: broken\n" } : run(args, o);
    await expect(scanPushedMetadata(failing, r.dir, { commits: [real], needles: [], ignoredBlobs: undefined }, refuse)).rejects.toThrow(
      "git could not read the commits, tags and notes to push whole (fatal: broken)",
    );
  });
});

describe("parseBatch", () => {
  const object = (body: string, type = "commit") =>
    Buffer.concat([Buffer.from(`${"b".repeat(40)} ${type} ${Buffer.byteLength(body)}\n`), Buffer.from(body), Buffer.from("\n")]);

  it("each object's id, type and body; nothing is an empty list", () => {
    expect(parseBatch(Buffer.alloc(0))).toEqual([]);
    expect(parseBatch(Buffer.concat([object("ab"), object("", "blob")]))).toEqual([
      { id: "b".repeat(40), type: "commit", body: Buffer.from("ab") },
      { id: "b".repeat(40), type: "blob", body: Buffer.alloc(0) },
    ]);
  });

  it("a size that is not a plain number is not whole, even where the bytes after it would parse", () => {
    const id = "b".repeat(40);
    expect(parseBatch(Buffer.from(`${id} commit\n\n`))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${id} commit -1\n`))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${id} blob 1e1\n0123456789\n`))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${id} missing\n`))).toBeUndefined();
  });

  it("a header without a size, a body without its newline, or a line without its end is not whole", () => {
    expect(parseBatch(Buffer.from(`${"b".repeat(40)} commit\nab\n`))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${"b".repeat(40)} commit x2\nab\n`))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${"b".repeat(40)} commit 2\nabc`))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${"b".repeat(40)} commit 2\nab`))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${"b".repeat(40)} commit 2`))).toBeUndefined();
  });
});
