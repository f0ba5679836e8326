import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OttoError } from "../../../src/core/index.ts";
import {
  commitAndPush,
  commitChanges,
  ignoredAt,
  restoreChanges,
  runGit,
  snapshotTree,
  type GitRun,
} from "../../../src/workspace/index.ts";
import { gitEnv } from "../../support/git.ts";
import { clone } from "../repo/fixtures.ts";
import { useFeatureClone } from "../pr/feature-clone.ts";

/*
 * Ignored files are the user's (real git): a file git ignored when otto took its snapshot is never
 * committed, whatever a session does to what git ignores; a file holding a known secret refuses
 * the commit; undoing a session restores only what it changed.
 */

const run: GitRun = (args, options) => runGit(args, { ...options, env: gitEnv() });
const KEY = "sk-live-0123456789abcdefUSERKEY";

async function repoWith(files: Record<string, string>) {
  const repo = await clone(files);
  const write = (file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(repo.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, file), content);
  };
  const read = (file: string) => fs.readFileSync(path.join(repo.dir, file), "utf8");
  const exists = (file: string) => fs.existsSync(path.join(repo.dir, file));
  const tracked = async () => (await repo.git(["ls-tree", "-r", "--name-only", "HEAD"])).split("\n").filter(Boolean).sort();
  return { repo, write, read, exists, tracked };
}

describe("the snapshot names what git ignores", () => {
  it("records ignored files and ignored folders as one entry each, names only", async () => {
    const t = await repoWith({ "README.md": "# app\n", ".gitignore": ".env\nnode_modules/\n*.log\n" });
    t.write(".env", `API_KEY=${KEY}\n`);
    t.write("node_modules/pkg/index.js", "module.exports = 1;\n");
    t.write("node_modules/pkg/deep/more.js", "x\n");
    t.write("logs/debug.log", "log\n");
    const snapshot = await snapshotTree(run, t.repo.dir);
    expect(snapshot.ignored).toEqual([".env", "logs/debug.log", "node_modules/"]);
    expect(JSON.stringify(snapshot)).not.toContain(KEY);
    expect(ignoredAt(snapshot, "node_modules/pkg/deep/more.js")).toBe(true);
    expect(ignoredAt(snapshot, "node_modules")).toBe(true);
    expect(ignoredAt(snapshot, "node_modules_other/x.js")).toBe(false);
    expect(ignoredAt(snapshot, ".env.example")).toBe(false);
    // logs/ only held ignored files; the folder itself is not ignored, so a file made there later is not either.
    expect(ignoredAt(snapshot, "logs/new.txt")).toBe(false);
  });
});

describe("commitChanges never takes a file that was ignored at snapshot time", () => {
  it(".gitignore edited by the session: .env is left out and reported, the fix and .gitignore are committed", async () => {
    const t = await repoWith({ "README.md": "# app\n", "app.js": "bug\n", ".gitignore": ".env\n" });
    t.write(".env", `API_KEY=${KEY}\n`);
    const baseline = await snapshotTree(run, t.repo.dir);
    t.write(".gitignore", "# nothing ignored\n");
    t.write("app.js", "fixed\n");
    const result = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline });
    expect(result.committed).toEqual([".gitignore", "app.js"]);
    expect(result.ignored).toEqual([".env"]);
    expect(await t.tracked()).not.toContain(".env");
    expect(t.read(".env")).toBe(`API_KEY=${KEY}\n`);
  });

  it("a nested .gitignore, .git/info/exclude and core.excludesFile un-ignored: every such file is left out", async () => {
    const t = await repoWith({ "README.md": "# app\n", "svc/.gitignore": "secrets.json\n" });
    t.write("svc/secrets.json", "{}\n");
    fs.writeFileSync(path.join(t.repo.dir, ".git", "info", "exclude"), "notes.md\n");
    t.write("notes.md", "my notes\n");
    const excludes = path.join(t.repo.dir, "..", "global-excludes");
    fs.writeFileSync(excludes, "*.local\n");
    await t.repo.git(["config", "core.excludesFile", excludes]);
    t.write("db.local", "local db\n");
    const baseline = await snapshotTree(run, t.repo.dir);
    expect(baseline.ignored).toEqual(["db.local", "notes.md", "svc/secrets.json"]);

    t.write("svc/.gitignore", "\n");
    fs.writeFileSync(path.join(t.repo.dir, ".git", "info", "exclude"), "\n");
    await t.repo.git(["config", "--unset", "core.excludesFile"]);
    t.write("svc/fix.js", "fixed\n");
    const result = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline });
    expect(result.committed).toEqual(["svc/.gitignore", "svc/fix.js"]);
    expect(result.ignored).toEqual(["db.local", "notes.md", "svc/secrets.json"]);
    expect(await t.tracked()).toEqual(["README.md", "svc/.gitignore", "svc/fix.js"]);
  });

  it("an ignored folder un-ignored: nothing under it is committed, not even a file made in it since", async () => {
    const t = await repoWith({ "README.md": "# app\n", ".gitignore": "vendor/\n" });
    t.write("vendor/lib/a.js", "a\n");
    t.write("vendor/lib/b.js", "b\n");
    const baseline = await snapshotTree(run, t.repo.dir);
    expect(baseline.ignored).toEqual(["vendor/"]);
    t.write(".gitignore", "\n");
    t.write("vendor/lib/c.js", "made in an ignored folder\n");
    t.write("src/fix.js", "fixed\n");
    const result = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline });
    expect(result.committed).toEqual([".gitignore", "src/fix.js"]);
    expect(result.ignored).toEqual(["vendor/lib/a.js", "vendor/lib/b.js", "vendor/lib/c.js"]);
  });

  it("a session that made nothing but un-ignored .env commits nothing and still reports it", async () => {
    const t = await repoWith({ "README.md": "# app\n" });
    fs.writeFileSync(path.join(t.repo.dir, ".git", "info", "exclude"), ".env\n");
    t.write(".env", `API_KEY=${KEY}\n`);
    const baseline = await snapshotTree(run, t.repo.dir);
    fs.writeFileSync(path.join(t.repo.dir, ".git", "info", "exclude"), "");
    const head = await t.repo.git(["rev-parse", "HEAD"]);
    const result = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline });
    expect(result).toMatchObject({ sha: undefined, committed: [], ignored: [".env"] });
    expect(await t.repo.git(["rev-parse", "HEAD"])).toBe(head);
  });
});

describe("commitChanges refuses a file holding a known secret", () => {
  it("names the file, never the value; nothing is committed or staged", async () => {
    const t = await repoWith({ "README.md": "# app\n" });
    const baseline = await snapshotTree(run, t.repo.dir);
    t.write("config/settings.js", `export const token = "${KEY}";\n`);
    t.write("src/fix.js", "fixed\n");
    const head = await t.repo.git(["rev-parse", "HEAD"]);
    const error = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline, secrets: [KEY, "short"] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OttoError);
    expect((error as OttoError).code).toBe("secret_in_commit");
    expect((error as OttoError).message).toContain("config/settings.js");
    expect((error as OttoError).message).not.toContain("src/fix.js");
    expect(`${(error as OttoError).message} ${(error as OttoError).fix}`).not.toContain(KEY);
    expect(await t.repo.git(["rev-parse", "HEAD"])).toBe(head);
    expect(await t.repo.git(["diff", "--cached", "--name-only"])).toBe("");
  });

  it("commits when no candidate holds one (a short value is not searched for; a big file is not read)", async () => {
    const t = await repoWith({ "README.md": "# app\n" });
    const baseline = await snapshotTree(run, t.repo.dir);
    t.write("src/fix.js", "const short = 'short';\n");
    t.write("data/big.bin", `${"x".repeat(5 * 1024 * 1024)}${KEY}`);
    const result = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline, secrets: [KEY, "short"] });
    expect(result.committed).toEqual(["data/big.bin", "src/fix.js"]);
  });
});

describe("restoreChanges undoes a session's work and nothing else", () => {
  it("restores edits, deletes the files it made, undoes its commit; the user's untracked and ignored files stay byte for byte", async () => {
    const t = await repoWith({ "README.md": "# app\n", "app.js": "one\n", "old.js": "old\n" });
    fs.writeFileSync(path.join(t.repo.dir, ".git", "info", "exclude"), ".env\n");
    t.write(".env", `API_KEY=${KEY}\n`);
    t.write("notes.txt", "the user's untracked notes\n");
    const start = await t.repo.git(["rev-parse", "HEAD"]);
    const baseline = await snapshotTree(run, t.repo.dir);

    // The session: un-ignores .env (not restorable by git: info/exclude), edits, deletes, makes files, commits some, force-adds .env.
    fs.writeFileSync(path.join(t.repo.dir, ".git", "info", "exclude"), "");
    t.write("app.js", "session\n");
    fs.rmSync(path.join(t.repo.dir, "old.js"));
    t.write("made/by-session.js", "new\n");
    t.write("committed.js", "committed by the session\n");
    await t.repo.git(["add", "-f", "committed.js", ".env", "app.js"]);
    await t.repo.git(["commit", "-qm", "session commit"]);
    t.write("staged.js", "staged\n");
    await t.repo.git(["add", "staged.js"]);

    expect(await restoreChanges(run, t.repo.dir, { startHead: start, baseline })).toBe(true);
    expect(await t.repo.git(["rev-parse", "HEAD"])).toBe(start);
    expect(t.read("app.js")).toBe("one\n");
    expect(t.read("old.js")).toBe("old\n");
    for (const made of ["made/by-session.js", "committed.js", "staged.js"]) expect(t.exists(made)).toBe(false);
    expect(t.read(".env")).toBe(`API_KEY=${KEY}\n`);
    expect(t.read("notes.txt")).toBe("the user's untracked notes\n");
    expect(await t.repo.git(["diff", "--cached", "--name-only"])).toBe("");
    expect(await t.repo.git(["status", "--porcelain", "--untracked-files=all"])).toBe("?? .env\n?? notes.txt".trim());
  });

  it("a file the session made and hid with .gitignore is found once .gitignore is restored", async () => {
    const t = await repoWith({ "README.md": "# app\n", ".gitignore": "dist/\n" });
    const start = await t.repo.git(["rev-parse", "HEAD"]);
    const baseline = await snapshotTree(run, t.repo.dir);
    t.write(".gitignore", "dist/\nhidden.js\n");
    t.write("hidden.js", "made and hidden\n");
    expect(await restoreChanges(run, t.repo.dir, { startHead: start, baseline })).toBe(true);
    expect(t.exists("hidden.js")).toBe(false);
    expect(t.read(".gitignore")).toBe("dist/\n");
  });
});

describe("commitAndPush reports what it left out", () => {
  const setup = useFeatureClone();
  it("pushes the fix without .env and names .env in its detail", async () => {
    const repo = await setup({ "a.txt": "one\n", ".gitignore": ".env\n" });
    fs.writeFileSync(path.join(repo.dir, ".env"), `API_KEY=${KEY}\n`);
    const baseline = await snapshotTree(run, repo.dir);
    fs.writeFileSync(path.join(repo.dir, ".gitignore"), "\n");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "fixed\n");
    const pushed = await commitAndPush({
      dir: repo.dir,
      branch: "feature",
      remote: "origin",
      message: "otto: fix",
      baseline,
      env: gitEnv(),
      secrets: [KEY],
    });
    expect(pushed.outcome).toBe("pushed");
    expect(pushed.ignored).toEqual([".env"]);
    expect(pushed.detail).toContain("Left out: .env");
    expect(await repo.gitRemote(["ls-tree", "-r", "--name-only", "feature"])).not.toContain(".env");
    expect(await repo.remoteFile("a.txt", "feature")).toBe("fixed\n");
  });

  it("refuses to push a session's own commit of the user's ignored .env, or of a file holding a known secret; nothing reaches the remote", async () => {
    const repo = await setup({ "a.txt": "one\n", ".gitignore": ".env\n" });
    fs.writeFileSync(path.join(repo.dir, ".env"), `API_KEY=${KEY}\n`);
    const baseline = await snapshotTree(run, repo.dir);
    const remoteHead = await repo.gitRemote(["rev-parse", "feature"]);
    // The session commits .env itself, against its instructions.
    await repo.git(["add", "-f", ".env"]);
    await repo.git(["commit", "-qm", "session's own commit"]);
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "fixed\n");
    const error = await commitAndPush({
      dir: repo.dir,
      branch: "feature",
      remote: "origin",
      message: "otto: fix",
      baseline,
      env: gitEnv(),
      secrets: [],
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as OttoError).code).toBe("ignored_file_in_commit");
    expect((error as OttoError).message).toContain(".env");
    expect(await repo.gitRemote(["rev-parse", "feature"])).toBe(remoteHead);

    // A known secret in a file a session committed and deleted again (still in the pushed history): refused too, the value never named.
    const other = await setup({ "a.txt": "one\n" });
    const base2 = await snapshotTree(run, other.dir);
    fs.writeFileSync(path.join(other.dir, "settings.js"), `const token = "${KEY}";\n`);
    await other.git(["add", "settings.js"]);
    await other.git(["commit", "-qm", "session's own commit"]);
    fs.rmSync(path.join(other.dir, "settings.js"));
    await other.git(["commit", "-qam", "and removed from disk"]);
    const before = await other.gitRemote(["rev-parse", "feature"]);
    const refused = await commitAndPush({
      dir: other.dir,
      branch: "feature",
      remote: "origin",
      message: "otto: fix",
      baseline: base2,
      env: gitEnv(),
      secrets: [KEY],
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((refused as OttoError).code).toBe("secret_in_commit");
    expect((refused as OttoError).message).toContain("settings.js");
    expect(`${(refused as OttoError).message} ${(refused as OttoError).fix}`).not.toContain(KEY);
    expect(await other.gitRemote(["rev-parse", "feature"])).toBe(before);
  });
});
