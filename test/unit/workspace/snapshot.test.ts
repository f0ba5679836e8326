import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CLEAN_TREE,
  commitChanges,
  diffSnapshots,
  parsePorcelainZ,
  pendingDiff,
  runGit,
  snapshotTree,
  type GitRun,
} from "../../../src/workspace/index.ts";
import { git, gitEnv } from "../../support/git.ts";
import { clone } from "../repo/fixtures.ts";

/* The snapshot of a tree before otto's sessions, and commits of only what they changed (real git). */

const run: GitRun = (args, options) => runGit(args, { ...options, env: gitEnv() });

const WEIRD = ["with space.txt", "new\nline.txt", "ünïcødé ✓.txt", "*.glob", ":(magic).txt"];

async function repoWith(files: Record<string, string>) {
  const repo = await clone({ "README.md": "# app\n", "keep.txt": "keep\n", "gone.txt": "gone\n", "old-name.txt": "rename me\n", ...files });
  const write = (file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(repo.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, file), content);
  };
  const read = (file: string) => fs.readFileSync(path.join(repo.dir, file), "utf8");
  const committed = async () =>
    (await runGit(["show", "-z", "--no-renames", "--name-only", "--format=", "HEAD"], { cwd: repo.dir, env: gitEnv() })).stdout
      .split("\0")
      .filter(Boolean)
      .sort();
  const status = async () =>
    parsePorcelainZ(
      (await runGit(["status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all"], { cwd: repo.dir, env: gitEnv() })).stdout,
    ).sort();
  return { repo, write, read, committed, status };
}

describe("diffSnapshots", () => {
  it("sorts paths into the sessions' (clean before), kept (dirty before, changed since) and untouched (the same)", () => {
    const before = { entries: { "a.txt": "file:644:1", "b.txt": "file:644:2", ".env": "file:644:3" } };
    const after = { entries: { "a.txt": "file:644:1", "b.txt": "file:644:9", "c.txt": "file:644:4", ".env": "file:644:3" } };
    expect(diffSnapshots(before, after)).toEqual({ paths: ["c.txt"], kept: ["b.txt"], untouched: [".env", "a.txt"], ignored: [] });
    // Dirty before and clean now: a session reverted the user's edit; that is theirs to see, not to commit.
    expect(diffSnapshots(before, { entries: {} })).toEqual({ paths: [], kept: [".env", "a.txt", "b.txt"], untouched: [], ignored: [] });
  });
});

describe("commitChanges", () => {
  it("commits only what the sessions changed: the user's edited file, untracked .env and staged change stay as they were", async () => {
    const t = await repoWith({ "staged.txt": "staged\n" });
    t.write("README.md", "# app, the user's edit\n");
    t.write(".env", "TOKEN=secret\n");
    t.write("staged.txt", "the user's staged change\n");
    await t.repo.git(["add", "staged.txt"]);
    const baseline = await snapshotTree(run, t.repo.dir);
    expect(Object.keys(baseline.entries).sort()).toEqual([".env", "README.md", "staged.txt"]);

    // The session: a new file, an edit of a clean file, a deletion, a rename.
    t.write("src/new.ts", "export const x = 1;\n");
    t.write("keep.txt", "keep, changed\n");
    fs.rmSync(path.join(t.repo.dir, "gone.txt"));
    fs.renameSync(path.join(t.repo.dir, "old-name.txt"), path.join(t.repo.dir, "new-name.txt"));
    const result = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline });

    expect(result.kept).toEqual([]);
    expect(result.committed).toEqual(["gone.txt", "keep.txt", "new-name.txt", "old-name.txt", "src/new.ts"]);
    expect(await t.committed()).toEqual(["gone.txt", "keep.txt", "new-name.txt", "old-name.txt", "src/new.ts"]);
    expect(await t.repo.git(["show", "HEAD:keep.txt"])).toBe("keep, changed");
    expect((await runGit(["cat-file", "-e", "HEAD:gone.txt"], { cwd: t.repo.dir, env: gitEnv() })).exitCode).not.toBe(0);
    // The user's work: untouched, and what they staged is still staged (and not in otto's commit).
    expect(await t.status()).toEqual([".env", "README.md", "staged.txt"]);
    expect(t.read("README.md")).toBe("# app, the user's edit\n");
    expect(t.read(".env")).toBe("TOKEN=secret\n");
    expect(await t.repo.git(["diff", "--cached", "--name-only"])).toBe("staged.txt");
    expect(await t.repo.git(["show", "HEAD:staged.txt"])).toBe("staged");
  });

  it("leaves a file both the user and a session changed uncommitted and reports it", async () => {
    const t = await repoWith({});
    t.write("README.md", "# app\nthe user's line\n");
    const baseline = await snapshotTree(run, t.repo.dir);
    t.write("README.md", "# app\nthe user's line\nthe session's line\n");
    t.write("other.txt", "session\n");
    const result = await commitChanges(run, t.repo.dir, { message: "otto: fix", baseline });
    expect(result).toMatchObject({ committed: ["other.txt"], kept: ["README.md"] });
    expect(await t.committed()).toEqual(["other.txt"]);
    expect(t.read("README.md")).toBe("# app\nthe user's line\nthe session's line\n");
    expect(await t.status()).toEqual(["README.md"]);
  });

  it("handles file names with spaces, newlines, unicode and glob or pathspec-magic characters, literally", async () => {
    const t = await repoWith({ "*.txt-not": "x\n" });
    t.write("user ✓.txt", "the user's\n");
    const baseline = await snapshotTree(run, t.repo.dir);
    for (const name of WEIRD) t.write(name, `${name}\n`);
    const result = await commitChanges(run, t.repo.dir, { message: "otto: weird names", baseline });
    expect(result.committed.sort()).toEqual([...WEIRD].sort());
    expect(await t.committed()).toEqual([...WEIRD].sort());
    expect(await t.status()).toEqual(["user ✓.txt"]);
  });

  it("makes no commit when the sessions changed nothing, unless an empty one is asked for (which still takes nothing staged)", async () => {
    const t = await repoWith({});
    t.write("README.md", "edited\n");
    await t.repo.git(["add", "README.md"]);
    const baseline = await snapshotTree(run, t.repo.dir);
    const head = await t.repo.git(["rev-parse", "HEAD"]);
    expect(await commitChanges(run, t.repo.dir, { message: "nothing", baseline })).toEqual({
      sha: undefined,
      committed: [],
      kept: [],
      ignored: [],
      nested: [],
    });
    expect(await t.repo.git(["rev-parse", "HEAD"])).toBe(head);
    const empty = await commitChanges(run, t.repo.dir, { message: "phase: nothing changed", baseline, allowEmpty: true });
    expect(empty.sha).toMatch(/^[0-9a-f]{7,}$/);
    expect(await t.committed()).toEqual([]);
    expect(await t.repo.git(["diff", "--cached", "--name-only"])).toBe("README.md");
  });

  it("commits an include folder whole (otto's spec), whoever changed it", async () => {
    const t = await repoWith({});
    t.write(".otto/specs/demo/tasks.md", "- [ ] one\n");
    t.write(".otto/specs/demo/design.md", "design\n");
    t.write("notes.txt", "the user's\n");
    const baseline = await snapshotTree(run, t.repo.dir);
    t.write(".otto/specs/demo/tasks.md", "- [x] one\n");
    t.write("src/a.ts", "a\n");
    const result = await commitChanges(run, t.repo.dir, { message: "phase 1", baseline, include: [".otto/specs/demo/"] });
    expect(result.committed).toEqual([".otto/specs/demo/design.md", ".otto/specs/demo/tasks.md", "src/a.ts"]);
    expect(await t.status()).toEqual(["notes.txt"]);
  });

  it("a clean baseline (otto's own temporary worktree) commits every change", async () => {
    const t = await repoWith({});
    t.write("a.txt", "a\n");
    fs.rmSync(path.join(t.repo.dir, "keep.txt"));
    const result = await commitChanges(run, t.repo.dir, { message: "all", baseline: CLEAN_TREE });
    expect(result.committed).toEqual(["a.txt", "keep.txt"]);
    expect(await t.status()).toEqual([]);
  });

  it("pendingDiff shows the sessions' changes only, new files included, and stages nothing", async () => {
    const t = await repoWith({});
    t.write(".env", "TOKEN=secret\n");
    const baseline = await snapshotTree(run, t.repo.dir);
    t.write("keep.txt", "keep, changed\n");
    t.write("docs/new.md", "new doc\n");
    const diff = await pendingDiff(run, t.repo.dir, { baseline });
    expect(diff).toContain("keep, changed");
    // A tracked file is diffed against HEAD (its old line shows as removed), not shown whole as new.
    expect(diff).toMatch(/^-keep$/m);
    expect(diff).not.toContain("--- /dev/null\n+++ b/keep.txt");
    expect(diff).toContain("new doc");
    expect(diff).not.toContain("TOKEN");
    expect(await git(["diff", "--cached", "--name-only"], t.repo.dir)).toBe("");
  });
});
