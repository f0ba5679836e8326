import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { OttoError } from "../../../src/core/index.ts";
import { commitAndPush, commitChanges, runGit, snapshotTree, type GitRun } from "../../../src/workspace/index.ts";
import { blobId } from "../../../src/workspace/ignored-content.ts";
import { MAX_PUSH_BLOB_BYTES, parseRawDiff } from "../../../src/workspace/push-scan.ts";
import { parseBatch } from "../../../src/workspace/pushed-metadata.ts";
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

describe("what leaves besides the files: messages, authors, names, tags and notes", () => {
  const setup = useFeatureClone();

  /** Plain git with its own identity (the tests' runner fixes author and committer). */
  const plain = (dir: string, args: string[], extra: Record<string, string> = {}, input?: string): string =>
    execFileSync("git", args, {
      cwd: dir,
      env: gitEnv({ GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@a", GIT_COMMITTER_NAME: "c", GIT_COMMITTER_EMAIL: "c@c", ...extra }),
      encoding: "utf8",
      ...(input !== undefined ? { input } : {}),
    }).trim();

  const pushing = async (secrets: string[] = [KEY], files: Record<string, string> = { "a.txt": "one\n" }) => {
    const repo = await setup(files);
    if (fs.existsSync(path.join(repo.dir, ".gitignore"))) fs.writeFileSync(path.join(repo.dir, ".env"), ENV);
    const baseline = await snapshotTree(run, repo.dir);
    const remoteHead = await repo.gitRemote(["rev-parse", "feature"]);
    const push = () =>
      commitAndPush({ dir: repo.dir, branch: "feature", remote: "origin", message: "otto: fix", baseline, env: gitEnv(), secrets });
    return { repo, remoteHead, push };
  };

  it("a known secret in a commit message: refused; the same commit without it is pushed (the control)", async () => {
    const { repo, remoteHead, push } = await pushing();
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "two\n");
    plain(repo.dir, ["commit", "-qam", `fix\n\nused ${KEY} to test`]);
    // The hostile step ran: the message is in the commit that would be pushed.
    expect(plain(repo.dir, ["log", "-1", "--format=%B"])).toContain(KEY);
    const error = await failure(push());
    expect(error?.code).toBe("secret_in_commit");
    expect(error?.message).toMatch(/commit [0-9a-f]{7}: holds a secret/);
    expect(error?.message).not.toContain(KEY);
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);

    plain(repo.dir, ["commit", "-q", "--amend", "-m", "fix"]);
    expect((await push()).outcome).toBe("pushed");
  });

  it("a known secret as author or committer, or in a header a session wrote itself: refused", async () => {
    const { repo, remoteHead, push } = await pushing();
    plain(repo.dir, ["commit", "-q", "--allow-empty", "-m", "by"], { GIT_AUTHOR_NAME: KEY });
    expect(plain(repo.dir, ["log", "-1", "--format=%an"])).toBe(KEY);
    expect((await failure(push()))?.code).toBe("secret_in_commit");

    plain(repo.dir, ["reset", "-q", "--hard", "origin/feature"]);
    plain(repo.dir, ["commit", "-q", "--allow-empty", "-m", "by"], { GIT_COMMITTER_EMAIL: `${KEY}@example.invalid` });
    expect(plain(repo.dir, ["log", "-1", "--format=%ce"])).toContain(KEY);
    expect((await failure(push()))?.code).toBe("secret_in_commit");

    // A header no pretty format shows: the object is written by hand and made HEAD.
    plain(repo.dir, ["reset", "-q", "--hard", "origin/feature"]);
    plain(repo.dir, ["commit", "-q", "--allow-empty", "-m", "plain"]);
    const raw = plain(repo.dir, ["cat-file", "commit", "HEAD"]).replace(/^(committer .*)$/m, `$1\nx-carry ${KEY}`);
    const forged = plain(repo.dir, ["hash-object", "-t", "commit", "-w", "--stdin"], {}, `${raw}\n`);
    plain(repo.dir, ["reset", "-q", "--hard", forged]);
    expect(plain(repo.dir, ["cat-file", "commit", "HEAD"])).toContain(`x-carry ${KEY}`);
    expect(plain(repo.dir, ["log", "-1", "--format=%B%an%ae%cn%ce"])).not.toContain(KEY);
    expect((await failure(push()))?.code).toBe("secret_in_commit");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);
  });

  it("a file named after a known secret: refused, the name redacted in the message", async () => {
    const { repo, remoteHead, push } = await pushing();
    fs.writeFileSync(path.join(repo.dir, `note-${KEY}.txt`), "harmless\n");
    plain(repo.dir, ["add", "-A"]);
    plain(repo.dir, ["commit", "-qm", "a name"]);
    const error = await failure(push());
    expect(error?.code).toBe("secret_in_commit");
    expect(error?.message).not.toContain(KEY);
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);
  });

  it("the ignored .env as a commit message (git commit -F .env): refused, naming .env", async () => {
    const { repo, remoteHead, push } = await pushing([], { "a.txt": "one\n", ".gitignore": ".env\n" });
    plain(repo.dir, ["commit", "-q", "--allow-empty", "-F", ".env"]);
    expect(plain(repo.dir, ["log", "-1", "--format=%B"])).toContain(KEY);
    const error = await failure(push());
    expect(error?.code).toBe("ignored_content_in_commit");
    expect(error?.message).toMatch(/commit [0-9a-f]{7} \(a copy of \.env\)/);
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);
  });

  it("an annotated tag or a note with a known secret on a pushed commit: refused", async () => {
    const { repo, remoteHead, push } = await pushing();
    plain(repo.dir, ["commit", "-q", "--allow-empty", "-m", "tagged"]);
    plain(repo.dir, ["tag", "-a", "v9", "-m", `release ${KEY}`]);
    expect(plain(repo.dir, ["cat-file", "tag", "v9"])).toContain(KEY);
    const tagged = await failure(push());
    expect(tagged?.code).toBe("secret_in_commit");
    expect(tagged?.message).toContain("tag v9");

    plain(repo.dir, ["tag", "-d", "v9"]);
    plain(repo.dir, ["notes", "add", "-m", `see ${KEY}`, "HEAD"]);
    expect(plain(repo.dir, ["notes", "show", "HEAD"])).toContain(KEY);
    const noted = await failure(push());
    expect(noted?.code).toBe("secret_in_commit");
    expect(noted?.message).toContain("note on");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);
  });

  it("tags and notes never leave with otto's push, even with push.followTags on", async () => {
    const { repo, push } = await pushing();
    plain(repo.dir, ["config", "push.followTags", "true"]);
    plain(repo.dir, ["commit", "-q", "--allow-empty", "-m", "tagged"]);
    plain(repo.dir, ["tag", "-a", "v9", "-m", "harmless"]);
    plain(repo.dir, ["notes", "add", "-m", "harmless", "HEAD"]);
    // The control: plain git would send the tag.
    expect(plain(repo.dir, ["push", "--dry-run", "--porcelain", "origin", "HEAD:refs/heads/feature"])).toContain("refs/tags/v9");
    expect((await push()).outcome).toBe("pushed");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(plain(repo.dir, ["rev-parse", "HEAD"]));
    expect(await repo.gitRemote(["for-each-ref", "refs/tags", "refs/notes"])).toBe("");
  });
});

describe("cat-file --batch output, parsed from bytes", () => {
  it("keeps each object's bytes, whatever they hold; a cut or missing object is undefined", () => {
    const body = Buffer.from("tree x\n\nh\u00e9llo\n\nmore", "utf8");
    const one = Buffer.concat([Buffer.from(`${"a".repeat(40)} commit ${body.length}\n`), body, Buffer.from("\n")]);
    expect(parseBatch(Buffer.concat([one, one]))?.map((o) => o.body.toString("utf8"))).toEqual([
      body.toString("utf8"),
      body.toString("utf8"),
    ]);
    expect(parseBatch(one.subarray(0, one.length - 2))).toBeUndefined();
    expect(parseBatch(Buffer.from(`${"a".repeat(40)} missing\n`))).toBeUndefined();
  });
});
