import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runGit } from "../../../src/workspace/index.ts";
import { blobId } from "../../../src/workspace/ignored-content.ts";
import { MAX_PUSH_BLOB_BYTES, parseRawDiff, refuseLeakingCommits } from "../../../src/workspace/push-scan.ts";
import type { GitRun, TreeSnapshot } from "../../../src/workspace/snapshot.ts";
import { gitEnv, removeAfterTest } from "../../support/git.ts";

/*
 * refuseLeakingCommits on a small repository (push-scan.test.ts drives it through otto's push):
 * what it refuses, with which code and words, and what a git that fails or lies makes of it.
 */

const SECRET = "known-secret-value-0123456789";
const run: GitRun = (args, options) => runGit(args, { ...options, env: gitEnv() });

function repo() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-push-scan-"));
  removeAfterTest(dir);
  const git = (...args: string[]): string =>
    execFileSync("git", args, {
      cwd: dir,
      env: gitEnv({ GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@a", GIT_COMMITTER_NAME: "c", GIT_COMMITTER_EMAIL: "c@c" }),
      encoding: "utf8",
    }).trim();
  git("init", "-q", "-b", "main");
  const commit = (files: Record<string, string>, message = "work"): string => {
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    git("add", "-A");
    git("commit", "-q", "--allow-empty", "-m", message);
    return git("rev-parse", "HEAD");
  };
  const base = commit({ "README.md": "base\n" }, "base");
  return { dir, git, commit, base };
}

const input = (base: string, baseline: TreeSnapshot = { entries: {} }, secrets: string[] = [SECRET]) => ({
  base,
  baseline,
  secrets,
  remote: "origin",
  branch: "feature",
});

describe("refuseLeakingCommits", () => {
  it("nothing to push, or nothing that must not leave: passes", async () => {
    const r = repo();
    await expect(refuseLeakingCommits(run, r.dir, input(r.base))).resolves.toBeUndefined();
    r.commit({ "a.txt": "harmless\n" });
    await expect(refuseLeakingCommits(run, r.dir, input(r.base, { entries: {}, ignored: ["other.txt"] }, []))).resolves.toBeUndefined();
  });

  it("one file that holds a secret: secret_in_commit, the secret redacted from the message, the fix naming the reset", async () => {
    const r = repo();
    r.commit({ "config.txt": `token=${SECRET}\n` });
    const err = await refuseLeakingCommits(run, r.dir, input(r.base)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "secret_in_commit",
      message:
        "Nothing pushed: the commits to push to feature hold files that must not leave this machine (config.txt: holds a secret otto knows).",
      fix: `Drop the commits and keep every file on disk (git -C ${r.dir} reset origin/feature), look at what the session changed, then run the command again.`,
    });
  });

  it("several at once: ignored files, copies of ignored content and secrets, each named, up to ten a kind", async () => {
    const r = repo();
    const env = "API_KEY=abc\n";
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`s${String(i).padStart(2, "0")}.txt`, SECRET]));
    r.commit({ ".env": env, "copy.txt": env, "dir/x.env": "x\n", ...many });
    const baseline: TreeSnapshot = { entries: {}, ignored: [".env", "dir/"], ignoredBlobs: { [blobId(Buffer.from(env))]: ".env" } };
    const err = (await refuseLeakingCommits(run, r.dir, input(r.base, baseline)).catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe("secret_in_commit");
    const names = Object.keys(many).slice(0, 10).join(", ");
    expect(err.message).toBe(
      `Nothing pushed: the commits to push to feature hold files that must not leave this machine (.env, dir/x.env: git ignored them when otto started, and a session committed them; copy.txt (a copy of .env): holds the content of a file git ignored when otto started; ${names} and 2 more: hold a secret otto knows).`,
    );
  });

  it("an ignored file alone is ignored_file_in_commit, said in the singular; a copy alone ignored_content_in_commit", async () => {
    const r = repo();
    r.commit({ ".env": "A=1\n" });
    await expect(refuseLeakingCommits(run, r.dir, input(r.base, { entries: {}, ignored: [".env"] }))).rejects.toMatchObject({
      code: "ignored_file_in_commit",
      message: expect.stringContaining("(.env: git ignored it when otto started, and a session committed it)") as unknown,
    });
    const c = repo();
    c.commit({ "copy.txt": "A=1\n", "b.txt": "A=1\n" });
    await expect(
      refuseLeakingCommits(run, c.dir, input(c.base, { entries: {}, ignoredBlobs: { [blobId(Buffer.from("A=1\n"))]: ".env" } })),
    ).rejects.toMatchObject({
      code: "ignored_content_in_commit",
      message: expect.stringContaining(
        "b.txt (a copy of .env), copy.txt (a copy of .env): hold the content of a file git ignored",
      ) as unknown,
    });
  });

  it("reads every commit, a file committed then deleted included; a deleted file and a submodule hold nothing", async () => {
    const r = repo();
    r.commit({ "leak.txt": SECRET });
    fs.rmSync(path.join(r.dir, "leak.txt"));
    r.commit({});
    await expect(refuseLeakingCommits(run, r.dir, input(r.base))).rejects.toMatchObject({ code: "secret_in_commit" });
    const s = repo();
    s.git("update-index", "--add", "--cacheinfo", `160000,${s.base},sub`);
    s.git("commit", "-q", "-m", "submodule");
    await expect(refuseLeakingCommits(run, s.dir, input(s.base))).resolves.toBeUndefined();
  });

  it("a file named after a secret sends it: refused, the name redacted; short secrets are not searched for", async () => {
    const r = repo();
    r.commit({ [`${SECRET}.txt`]: "x\n", "short.txt": "abcdefg" });
    await expect(refuseLeakingCommits(run, r.dir, input(r.base))).rejects.toThrow(/\(\[REDACTED\]\.txt: holds a secret otto knows\)/);
    const s = repo();
    s.commit({ "short.txt": "abcdefg" });
    await expect(refuseLeakingCommits(run, s.dir, input(s.base, { entries: {} }, ["abcdefg"]))).resolves.toBeUndefined();
    await expect(refuseLeakingCommits(run, s.dir, input(s.base, { entries: {} }, ["abcdefgh", "abcdefg"]))).resolves.toBeUndefined();
  });

  it("what git cannot list or read refuses the push as push_scan_too_large, saying what failed", async () => {
    const r = repo();
    r.commit({ "a.txt": SECRET });
    const failing =
      (sub: string, result: { exitCode: number; stdout: string; stderr: string }): GitRun =>
      (args, o) =>
        args[0] === sub ? Promise.resolve(result) : run(args, o);
    const fails = async (git: GitRun, why: string) => {
      const err = await refuseLeakingCommits(git, r.dir, input(r.base)).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: "push_scan_too_large",
        message: `Nothing pushed: otto reads every commit and file it pushes, and ${why}.`,
      });
      expect((err as { fix: string }).fix).toBe(
        `Look at the commits (git -C ${r.dir} log origin/feature..HEAD --stat); drop what should not go (git -C ${r.dir} reset origin/feature keeps every file on disk), or push by hand after checking them.`,
      );
    };
    await fails(
      failing("rev-list", { exitCode: 128, stdout: "", stderr: "bad revision\n" }),
      "git could not list the commits to push (bad revision)",
    );
    await fails(failing("rev-list", { exitCode: 1, stdout: "", stderr: "" }), "git could not list the commits to push (exit 1)");
    await fails(failing("diff-tree", { exitCode: 128, stdout: "", stderr: "" }), "git could not list their files (exit 128)");
    await fails(failing("diff-tree", { exitCode: 1, stdout: "", stderr: "oops" }), "git could not list their files (oops)");
    const blob = r.git("rev-parse", "HEAD:a.txt");
    await fails(
      (args, o) =>
        args[0] === "cat-file" && args[1]?.startsWith("--batch-check")
          ? Promise.resolve({ exitCode: 128, stdout: "", stderr: " broken " })
          : run(args, o),
      "git could not read the sizes of the files to push (broken)",
    );
    await fails(
      (args, o) =>
        args[0] === "cat-file" && args[1]?.startsWith("--batch-check")
          ? Promise.resolve({ exitCode: 0, stdout: `${blob} ${MAX_PUSH_BLOB_BYTES + 1}\n`, stderr: "" })
          : run(args, o),
      `a.txt is ${MAX_PUSH_BLOB_BYTES + 1} bytes, more than the 32 MiB it searches for secrets`,
    );
    await expect(
      refuseLeakingCommits(
        (args, o) =>
          args[0] === "cat-file" && args[1]?.startsWith("--batch-check")
            ? Promise.resolve({ exitCode: 0, stdout: `${blob} ${MAX_PUSH_BLOB_BYTES}\n`, stderr: "" })
            : run(args, o),
        r.dir,
        input(r.base),
      ),
    ).rejects.toMatchObject({ code: "secret_in_commit" });
    await fails(
      (args, o) =>
        args[0] === "cat-file" && args[1]?.startsWith("--batch-check")
          ? Promise.resolve({ exitCode: 0, stdout: `${blob} x\n`, stderr: "" })
          : run(args, o),
      `git could not read a.txt (blob ${blob})`,
    );
    await fails(
      (args, o) =>
        args[0] === "cat-file" && args[1] === "blob" ? Promise.resolve({ exitCode: 128, stdout: "", stderr: "" }) : run(args, o),
      `git could not read a.txt (blob ${blob})`,
    );
  });
});

describe("refuseLeakingCommits: the edges", () => {
  it("a secret only in a commit's message is refused, naming the commit; an ignored file holding it is named as ignored, not read for it", async () => {
    const r = repo();
    const sha = r.commit({ "a.txt": "harmless\n" }, `fix: use ${SECRET}`);
    const err = (await refuseLeakingCommits(run, r.dir, input(r.base)).catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe("secret_in_commit");
    expect(err.message).toContain(`(commit ${sha.slice(0, 7)}: holds a secret otto knows)`);
    expect(err.message).not.toContain(SECRET);
    const i = repo();
    i.commit({ ".env": `TOKEN=${SECRET}\n` });
    const ignored = (await refuseLeakingCommits(run, i.dir, input(i.base, { entries: {}, ignored: [".env"] })).catch(
      (e: unknown) => e,
    )) as Error & {
      code: string;
    };
    expect([ignored.code, ignored.message]).toEqual([
      "ignored_file_in_commit",
      "Nothing pushed: the commits to push to feature hold files that must not leave this machine (.env: git ignored it when otto started, and a session committed it).",
    ]);
  });

  it("a secret of eight characters is searched for, one of seven is not; exactly ten names are all named, with no count", async () => {
    const r = repo();
    r.commit({ "a.txt": "x 12345678 y\n", "b.txt": "1234567\n" });
    await expect(refuseLeakingCommits(run, r.dir, input(r.base, { entries: {} }, ["12345678"]))).rejects.toThrow(/a\.txt: holds a secret/);
    await expect(refuseLeakingCommits(run, r.dir, input(r.base, { entries: {} }, ["1234567"]))).resolves.toBeUndefined();
    const t = repo();
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`f${n}.txt`, SECRET]));
    t.commit(ten);
    const err = (await refuseLeakingCommits(run, t.dir, input(t.base)).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(`(${Object.keys(ten).join(", ")}: hold a secret otto knows)`);
  });
});

describe("parseRawDiff", () => {
  it("a blob id that only ends or starts with zeros is a blob", () => {
    const z = "0".repeat(40);
    const tail = `${"a".repeat(30)}${"0".repeat(10)}`;
    const head = `${"0".repeat(10)}${"a".repeat(30)}`;
    expect(parseRawDiff([`:000000 100644 ${z} ${tail} A`, "t.txt", `:000000 100644 ${z} ${head} A`, "h.txt"].join("\0"))).toEqual([
      { path: "t.txt", blob: tail, mode: "100644" },
      { path: "h.txt", blob: head, mode: "100644" },
    ]);
  });

  it("added and changed files with their blobs; deletions, empty blobs and stray fields skipped", () => {
    const z = "0".repeat(40);
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    const text = [
      `:000000 100644 ${z} ${a} A`,
      "new.txt",
      `:100644 100644 ${a} ${b} M`,
      "changed.txt",
      `:100644 000000 ${a} ${z} D`,
      "gone.txt",
      "stray",
      `:100644 100644 ${a} ${z} M`,
      "zero.txt",
      `:160000 160000 ${a} ${b} M`,
      "",
    ].join("\0");
    expect(parseRawDiff(text)).toEqual([
      { path: "new.txt", blob: a, mode: "100644" },
      { path: "changed.txt", blob: b, mode: "100644" },
    ]);
  });
});
