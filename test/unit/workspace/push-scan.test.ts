import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { OttoError } from "../../../src/core/index.ts";
import { commitAndPush, commitChanges, runGit, snapshotTree, type GitRun } from "../../../src/workspace/index.ts";
import { blobId } from "../../../src/workspace/ignored-content.ts";
import { MAX_PUSH_BLOB_BYTES, parseRawDiff } from "../../../src/workspace/push-scan.ts";
import { gitEnv } from "../../support/git.ts";
import { useFeatureClone } from "../pr/feature-clone.ts";

/*
 * Nothing leaves that should not (real git, a bare remote): the push scan reads every commit, not
 * the first 50; an ignored file's content under another name is refused at the commit and at the
 * push; a harmless new file goes through.
 */

const run: GitRun = (args, options) => runGit(args, { ...options, env: gitEnv() });
const KEY = "sk-live-0123456789abcdefUSERKEY";
const ENV = `API_KEY=${KEY}\nDB=postgres://u:p@db/app\n`;

const failure = (promise: Promise<unknown>): Promise<OttoError | undefined> =>
  promise.then(
    () => undefined,
    (e: unknown) => e as OttoError,
  );

describe("git blob ids, computed in Node", () => {
  it("match git hash-object, and a CRLF file also yields its LF form", async () => {
    const bytes = Buffer.from(ENV);
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "otto-blob-"));
    try {
      fs.writeFileSync(path.join(dir, "f"), bytes);
      const git = await runGit(["hash-object", "--no-filters", "f"], { cwd: dir, env: gitEnv() });
      expect(blobId(bytes)).toBe(git.stdout.trim());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("parses diff-tree's raw output, skipping deletions", () => {
    const z = [
      ":000000 100644 0000000000000000000000000000000000000000 1111111111111111111111111111111111111111 A",
      "new file.txt",
      ":100644 000000 2222222222222222222222222222222222222222 0000000000000000000000000000000000000000 D",
      "gone.txt",
      ":100644 100755 3333333333333333333333333333333333333333 4444444444444444444444444444444444444444 M",
      "run.sh",
      "",
    ].join("\0");
    expect(parseRawDiff(z)).toEqual([
      { path: "new file.txt", blob: "1111111111111111111111111111111111111111", mode: "100644" },
      { path: "run.sh", blob: "4444444444444444444444444444444444444444", mode: "100755" },
    ]);
  });
});

describe("the push scan has no limit that skips", () => {
  const setup = useFeatureClone();

  it("50 commits, then a forced .env: refused, nothing reaches the remote", async () => {
    const repo = await setup({ "a.txt": "one\n", ".gitignore": ".env\n" });
    fs.writeFileSync(path.join(repo.dir, ".env"), ENV);
    const baseline = await snapshotTree(run, repo.dir);
    const remoteHead = await repo.gitRemote(["rev-parse", "feature"]);
    for (let i = 0; i < 50; i++) await repo.git(["commit", "-q", "--allow-empty", "-m", `dummy ${i}`]);
    await repo.git(["add", "-f", ".env"]);
    await repo.git(["commit", "-qm", "the 51st commit"]);
    const error = await failure(
      commitAndPush({ dir: repo.dir, branch: "feature", remote: "origin", message: "otto: fix", baseline, env: gitEnv(), secrets: [] }),
    );
    expect(error?.code).toBe("ignored_file_in_commit");
    expect(error?.message).toContain(".env");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);
  });

  it("a secret in the 60th of 60 changed files of the 55th commit: refused", async () => {
    const repo = await setup({ "a.txt": "one\n" });
    const baseline = await snapshotTree(run, repo.dir);
    const remoteHead = await repo.gitRemote(["rev-parse", "feature"]);
    for (let i = 0; i < 54; i++) await repo.git(["commit", "-q", "--allow-empty", "-m", `dummy ${i}`]);
    for (let i = 0; i < 60; i++)
      fs.writeFileSync(path.join(repo.dir, `f${String(i).padStart(2, "0")}.txt`), i === 59 ? `t=${KEY}\n` : `${i}\n`);
    await repo.git(["add", "-A"]);
    await repo.git(["commit", "-qm", "many files"]);
    const error = await failure(
      commitAndPush({ dir: repo.dir, branch: "feature", remote: "origin", message: "otto: fix", baseline, env: gitEnv(), secrets: [KEY] }),
    );
    expect(error?.code).toBe("secret_in_commit");
    expect(error?.message).toContain("f59.txt");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);
  });
});

describe("what the push scan cannot read whole refuses the push", () => {
  const setup = useFeatureClone();

  it("a blob over the ceiling, with secrets to search for: refused, saying what and what to do", async () => {
    const repo = await setup({ "a.txt": "one\n" });
    const baseline = await snapshotTree(run, repo.dir);
    const remoteHead = await repo.gitRemote(["rev-parse", "feature"]);
    fs.writeFileSync(path.join(repo.dir, "big.bin"), Buffer.alloc(MAX_PUSH_BLOB_BYTES + 1));
    await repo.git(["add", "big.bin"]);
    await repo.git(["commit", "-qm", "a big file"]);
    const error = await failure(
      commitAndPush({ dir: repo.dir, branch: "feature", remote: "origin", message: "otto: fix", baseline, env: gitEnv(), secrets: [KEY] }),
    );
    expect(error?.code).toBe("push_scan_too_large");
    expect(error?.message).toContain(`big.bin is ${MAX_PUSH_BLOB_BYTES + 1} bytes`);
    expect(error?.fix).toContain("log origin/feature..HEAD --stat");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);
  });
});

describe("an ignored file's content under another name", () => {
  const setup = useFeatureClone();

  it("the snapshot records the ignored files' blob ids, not their content; folders are not walked", async () => {
    const repo = await setup({ "a.txt": "one\n", ".gitignore": ".env\nnode_modules/\nempty.txt\n" });
    fs.writeFileSync(path.join(repo.dir, ".env"), ENV);
    fs.writeFileSync(path.join(repo.dir, "empty.txt"), "");
    fs.mkdirSync(path.join(repo.dir, "node_modules"));
    fs.writeFileSync(path.join(repo.dir, "node_modules", "x.js"), "module.exports = 1;\n");
    const snapshot = await snapshotTree(run, repo.dir);
    expect(snapshot.ignoredBlobs).toEqual({ [blobId(Buffer.from(ENV))]: ".env" });
    expect(JSON.stringify(snapshot)).not.toContain(KEY);
  });

  it("otto's commit of `cp .env config.example` is refused, naming both; a harmless new file is committed (the control)", async () => {
    const repo = await setup({ "a.txt": "one\n", ".gitignore": ".env\n" });
    fs.writeFileSync(path.join(repo.dir, ".env"), ENV);
    const baseline = await snapshotTree(run, repo.dir);
    fs.copyFileSync(path.join(repo.dir, ".env"), path.join(repo.dir, "config.example"));
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "fixed\n");
    const error = await failure(commitChanges(run, repo.dir, { message: "otto: fix", baseline }));
    expect(error?.code).toBe("ignored_content_in_commit");
    expect(error?.message).toContain("config.example (a copy of .env)");
    expect(await repo.git(["rev-list", "--count", "HEAD"])).toBe("1");

    // The same content with Windows line endings is the same file to git's autocrlf: refused too.
    fs.writeFileSync(path.join(repo.dir, "config.example"), ENV.replace(/\n/g, "\r\n"));
    expect((await failure(commitChanges(run, repo.dir, { message: "otto: fix", baseline })))?.code).toBe("ignored_content_in_commit");

    fs.writeFileSync(path.join(repo.dir, "config.example"), "API_KEY=\nDB=\n");
    const done = await commitChanges(run, repo.dir, { message: "otto: fix", baseline });
    expect(done.committed).toEqual(["a.txt", "config.example"]);
  });

  it("a session's own commit of the copy is refused at the push; a harmless new file is pushed (the control)", async () => {
    const repo = await setup({ "a.txt": "one\n", ".gitignore": ".env\n" });
    fs.writeFileSync(path.join(repo.dir, ".env"), ENV);
    const baseline = await snapshotTree(run, repo.dir);
    const remoteHead = await repo.gitRemote(["rev-parse", "feature"]);
    fs.copyFileSync(path.join(repo.dir, ".env"), path.join(repo.dir, "config.example"));
    await repo.git(["add", "config.example"]);
    await repo.git(["commit", "-qm", "session's own commit"]);
    const push = () =>
      commitAndPush({ dir: repo.dir, branch: "feature", remote: "origin", message: "otto: fix", baseline, env: gitEnv(), secrets: [] });
    const error = await failure(push());
    expect(error?.code).toBe("ignored_content_in_commit");
    expect(error?.message).toContain("config.example (a copy of .env)");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);

    // Control: the session replaces the copy with a template; the push goes through.
    await repo.git(["reset", "-q", "--hard", "origin/feature"]);
    fs.writeFileSync(path.join(repo.dir, "config.example"), "API_KEY=\n");
    await repo.git(["add", "config.example"]);
    await repo.git(["commit", "-qm", "a template"]);
    expect((await push()).outcome).toBe("pushed");
    expect(await repo.remoteFile("config.example", "feature")).toBe("API_KEY=\n");
    expect(fs.readFileSync(path.join(repo.dir, ".env"), "utf8")).toBe(ENV);
  });
});
