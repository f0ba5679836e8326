import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newDocument } from "../../../src/pr/commands/add.ts";
import { runCommentPass } from "../../../src/pr/comments/index.ts";
import { describeHolder, withWorkLock, workLockHolder, workLockPaths, workTreeBusy } from "../../../src/workspace/index.ts";
import { createPrStore, type PrBackend, type PrInfo } from "../../../src/pr/index.ts";
import type { SessionRunner } from "../../../src/session/index.ts";
import { gitEnv } from "../../support/git.ts";
import { testConfig, useTempDir } from "../pr/support.ts";
import { samplePr } from "../pr/sample-pr.ts";

const tempDir = useTempDir();

/** A working tree and a data home of its own, so tests never share lock files. */
function setup() {
  const root = tempDir();
  const tree = path.join(root, "tree");
  fs.mkdirSync(tree);
  return { tree, env: { XDG_DATA_HOME: path.join(root, "data"), HOME: root } };
}

describe("withWorkLock", () => {
  it("lets one job hold a working tree; a second one, by any path to it, is told who holds it", async () => {
    const { tree, env } = setup();
    const link = path.join(path.dirname(tree), "link");
    fs.symlinkSync(tree, link);
    let second: unknown;
    const first = await withWorkLock(
      tree,
      "the fix flow of github-o-r-1",
      async () => {
        second = await withWorkLock(link, "the comment flow of github-o-r-1", async () => "ran", { env });
        expect((await workLockHolder(tree, { env })).busy).toBe(true);
        return "done";
      },
      { env },
    );
    expect(first).toEqual({ busy: false, value: "done" });
    expect(second).toMatchObject({
      busy: true,
      holder: { owner: "the fix flow of github-o-r-1", pid: process.pid, dir: fs.realpathSync(tree) },
    });
    expect(describeHolder((second as { holder: Parameters<typeof describeHolder>[0] }).holder)).toContain(
      `the fix flow of github-o-r-1 (pid ${process.pid}`,
    );
    // Released: the next job gets it, and nothing is left behind.
    expect(await withWorkLock(link, "the review loop", async () => 1, { env })).toEqual({ busy: false, value: 1 });
    const paths = await workLockPaths(tree, env);
    expect(fs.existsSync(`${paths.file}.lock`)).toBe(false);
    expect(fs.existsSync(paths.holder)).toBe(false);
    expect(await workLockHolder(tree, { env })).toEqual({ busy: false, holder: undefined });
  });

  it("keeps other working trees apart", async () => {
    const { tree, env } = setup();
    const other = path.join(path.dirname(tree), "other");
    fs.mkdirSync(other);
    const inner = await withWorkLock(tree, "a", () => withWorkLock(other, "b", async () => "both", { env }), { env });
    expect(inner).toEqual({ busy: false, value: { busy: false, value: "both" } });
  });

  it("releases the lock when the job throws", async () => {
    const { tree, env } = setup();
    await expect(withWorkLock(tree, "a", () => Promise.reject(new Error("boom")), { env })).rejects.toThrow("boom");
    expect(await withWorkLock(tree, "b", async () => "after", { env })).toEqual({ busy: false, value: "after" });
  });

  it("takes over the lock of a holder that stopped refreshing it (crashed), and names itself", async () => {
    const { tree, env } = setup();
    const paths = await workLockPaths(tree, env);
    // What a crashed process leaves: the lock directory and its holder record, no longer touched.
    fs.mkdirSync(`${paths.file}.lock`, { recursive: true });
    fs.writeFileSync(
      paths.holder,
      JSON.stringify({
        owner: "the fix flow of x",
        pid: 999_999,
        host: "box",
        since: "2026-03-01T12:00:00.000Z",
        dir: tree,
        token: "dead",
      }),
    );
    // Fresh: it is busy.
    expect(await withWorkLock(tree, "b", async () => "no", { env, staleMs: 5_000 })).toMatchObject({
      busy: true,
      holder: { owner: "the fix flow of x" },
    });
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${paths.file}.lock`, old, old);
    let during: unknown;
    const result = await withWorkLock(
      tree,
      "the comment flow of y",
      async () => {
        during = JSON.parse(fs.readFileSync(paths.holder, "utf8"));
        return "took over";
      },
      { env, staleMs: 5_000 },
    );
    expect(result).toEqual({ busy: false, value: "took over" });
    expect(during).toMatchObject({ owner: "the comment flow of y", pid: process.pid });
    expect(fs.existsSync(`${paths.file}.lock`)).toBe(false);
  });
});

describe("the work lock's callers", () => {
  it("the review loop's refusal names the holder and what to do", () => {
    const error = workTreeBusy(
      "/src/app",
      {
        owner: "the fix flow of github-o-r-1 (PR watcher)",
        pid: 7,
        host: "box",
        since: "2026-03-01T12:00:00.000Z",
        dir: "/src/app",
        token: "t",
      },
      "run /pr-review --loop again",
    );
    expect(error).toMatchObject({ code: "worktree_busy" });
    expect(error.message).toContain("/src/app is busy: the fix flow of github-o-r-1 (PR watcher) (pid 7 on box");
    expect(error.fix).toContain("run /pr-review --loop again");
  });

  it("the comment flow leaves a busy tree alone: nothing answered, nothing recorded as seen, no model asked", async () => {
    const { tree, env } = setup();
    // The PR's clone: the cwd, on the PR's branch, with a GitHub-like origin.
    const git = (...args: string[]) => execFileSync("git", args, { cwd: tree, env: gitEnv(), encoding: "utf8" });
    git("init", "-q", "-b", "feature/auth");
    git("remote", "add", "origin", "https://github.com/octo/app");
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "init");
    const pr: PrInfo = samplePr();
    const store = createPrStore(path.join(env.XDG_DATA_HOME, "prs"));
    const doc = newDocument(pr, "github-octo-app-42", 5, "2026-02-06T10:00:00.000Z");
    await store.create(doc);
    const calls: string[] = [];
    const comment = {
      id: "review-1",
      kind: "inline" as const,
      author: "alice",
      association: "OWNER",
      body: "rename this",
      createdAt: "2026-02-06T11:00:00Z",
      path: "a.ts",
      line: 1,
      resolved: false,
    };
    const backend = {
      name: "github",
      getComments: () => Promise.resolve([comment]),
      currentUser: () => Promise.resolve("me"),
      replyToComment: () => (calls.push("reply"), Promise.resolve()),
      resolveComment: () => (calls.push("resolve"), Promise.resolve()),
    } as unknown as PrBackend;
    const logs: string[] = [];
    const deps = {
      store,
      sessions: {} as SessionRunner,
      model: () => (calls.push("model"), Promise.reject(new Error("no model may be asked for"))),
      cwd: tree,
      config: testConfig(),
      secrets: [],
      env: { ...gitEnv(), ...env },
      notify: () => Promise.resolve({ delivered: [], failed: [] }),
      now: () => new Date("2026-02-06T12:00:00.000Z"),
      log: (_level: string, message: string) => void logs.push(message),
    };
    const held = await withWorkLock(
      tree,
      "the fix flow of github-octo-app-42 (PR watcher)",
      () => runCommentPass(deps, { doc, pr, backend }),
      { env },
    );
    expect(held.busy).toBe(false);
    const report = held.busy ? undefined : held.value;
    expect(report?.busy).toContain("the fix flow of github-octo-app-42 (PR watcher) (pid");
    expect(report).toMatchObject({ answered: [], failed: [], recovered: [] });
    expect(calls).toEqual([]);
    expect(logs.some((l) => l.includes("deferred to the next pass"))).toBe(true);
    expect((await store.read("github-octo-app-42"))?.data.seen_comment_ids).toEqual([]);
  });
});
