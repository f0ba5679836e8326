import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  BuildStore,
  archiveTarget,
  noteOf,
  resolveTargets,
  runBuild,
  statusVerb,
  type BuildDeps,
  type BuildState,
  type BuildTarget,
} from "../../../src/build/index.ts";
import { OttoError } from "../../../src/core/index.ts";
import { runGit, type CheckResult } from "../../../src/workspace/index.ts";
import type { NotifyEvent } from "../../../src/notify/index.ts";
import { FakeBuilder, completeNext, tasksMd, tempRepoDir, type Step } from "./fixtures.ts";

const NOW = new Date("2026-11-21T10:00:00Z");
const DEMO: BuildTarget = { kind: "spec", name: "demo" };
/** Above Linux's default pid_max (2^22): no process has it. */
const DEAD_PID = 2 ** 22 + 1;
const DEMO_STATE: BuildState = {
  target: DEMO,
  status: "stopped",
  phase: "build",
  iteration: 1,
  maxIterations: 10,
  stagnantTurns: 0,
  updatedAt: NOW.toISOString(),
};

function repoWith(specs: Record<string, string>): string {
  const root = tempRepoDir();
  for (const [slug, tasks] of Object.entries(specs)) {
    fs.mkdirSync(path.join(root, ".otto/specs", slug), { recursive: true });
    fs.writeFileSync(path.join(root, ".otto/specs", slug, "tasks.md"), tasks);
  }
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: root, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" } });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "t");
  git("config", "user.email", "t@example.com");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  return root;
}

/** A builder that completes one task per turn and confirms when asked. */
const worker =
  (root: string): Step =>
  (_turn, prompt) => {
    const slug = /otto spec '([^']+)'|\.otto\/specs\/([^/`]+)\/tasks\.md/.exec(prompt);
    const name = slug?.[1] ?? slug?.[2] ?? "";
    if (prompt.includes("`VERIFIED`")) return "VERIFIED";
    const file = path.join(root, ".otto/specs", name, "tasks.md");
    completeNext(file);
    fs.writeFileSync(path.join(root, `${name}-${Date.now()}.txt`), "x");
    return "one more task done";
  };

/** Sessions that exist on the fake server: a resumed loop may reopen them. */
const sessions = new Set<string>();
let opened = 0;

function deps(
  root: string,
  step: Step,
  notified: NotifyEvent[] = [],
): { deps: BuildDeps; builders: FakeBuilder[]; resumes: Array<string | undefined>; titles: string[] } {
  const builders: FakeBuilder[] = [];
  const resumes: Array<string | undefined> = [];
  const titles: string[] = [];
  return {
    builders,
    resumes,
    titles,
    deps: {
      repoRoot: root,
      store: new BuildStore(root),
      openBuilder: async (_target, resume) => {
        resumes.push(resume);
        const id = resume !== undefined && sessions.has(resume) ? resume : `ses_${++opened}`;
        sessions.add(id);
        const b = new FakeBuilder(step, id);
        builders.push(b);
        return b;
      },
      git: runGit,
      verify: [],
      runChecks: async () => [],
      archive: (target: BuildTarget) => archiveTarget(target, { repoRoot: root, now: () => NOW, openspec: async () => undefined }),
      notify: async (event) => {
        notified.push(event);
      },
      progress: (title) => titles.push(title),
      now: () => NOW,
      pid: process.pid,
      pollMs: 5,
    },
  };
}

describe("runBuild", () => {
  it("a tree where git knows no identity (user.useConfigOnly, none set): refused before a builder opens, naming the fix", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    const plain: Record<string, string | undefined> = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" };
    for (const key of Object.keys(plain)) if (/^(GIT_(AUTHOR|COMMITTER)_|EMAIL$)/.test(key)) delete plain[key];
    execFileSync("git", ["config", "--unset", "user.email"], { cwd: root, env: plain });
    execFileSync("git", ["config", "user.useConfigOnly", "true"], { cwd: root, env: plain });
    const { deps: d, builders } = deps(root, worker(root));
    d.git = (args, options) => runGit(args, { ...options, env: plain });
    const error = await runBuild(d, [DEMO], { maxIterations: 10, stagnationLimit: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OttoError);
    expect((error as OttoError).code).toBe("git_identity");
    expect((error as OttoError).message).toMatch(/does not know who you are \(no email was given and auto-detection is disabled\)/);
    expect((error as OttoError).fix).toMatch(/git config --global user\.email .*run \/otto-build again/);
    expect(builders).toEqual([]);
  });

  it("commits once and archives the spec when done; the state says done", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    const { deps: d } = deps(root, worker(root));
    const [result] = await runBuild(d, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 3 });
    expect(result?.end.kind).toBe("done");
    expect(fs.existsSync(path.join(root, ".otto/specs/archive/2026-11-21-demo/tasks.md"))).toBe(true);
    expect(fs.existsSync(path.join(root, ".otto/specs/demo"))).toBe(false);
    const log = execFileSync("git", ["log", "--format=%s"], { cwd: root, encoding: "utf8" }).trim().split("\n");
    expect(log).toEqual(["feat(demo): implementation complete", "init"]);
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" })).toBe("");
    expect(await new BuildStore(root).read({ kind: "spec", name: "demo" })).toMatchObject({ status: "done", iteration: 3 });
  });

  it("with no checks found, done says unverified in the state, the summary, the status view and the notification", async () => {
    const root = repoWith({ demo: tasksMd(1) });
    const notified: NotifyEvent[] = [];
    const { deps: d } = deps(root, worker(root), notified);
    const [result] = await runBuild(d, [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    expect(result?.end.kind).toBe("done");
    if (result?.end.kind === "done")
      expect(noteOf(result.end)).toBe("done, unverified: no checks found, after 2 turn(s) (set spec.verify to have otto run some)");
    expect(await new BuildStore(root).read(DEMO)).toMatchObject({
      status: "done",
      verified: false,
      note: expect.stringContaining("done, unverified: no checks found") as unknown,
    });
    expect(notified.map((e) => [e.kind, e.title])).toEqual([["spec_finished", "otto build demo: done, unverified: no checks found"]]);
    expect((await statusVerb(root)).output).toContain("| spec demo | done, unverified |");
    expect(execFileSync("git", ["log", "-1", "--format=%B"], { cwd: root, encoding: "utf8" })).toContain(
      "verify: none, no checks found (unverified).",
    );
  });

  it("with checks that ran and passed, done says verified", async () => {
    const root = repoWith({ demo: tasksMd(1) });
    const notified: NotifyEvent[] = [];
    const { deps: d } = deps(root, worker(root), notified);
    const passed = { command: "npm test", passed: true, exitCode: 0, timedOut: false, durationMs: 1, output: "" };
    const [result] = await runBuild({ ...d, verify: ["npm test"], runChecks: async () => [passed] }, [DEMO], {
      maxIterations: 10,
      stagnationLimit: 3,
    });
    if (result?.end.kind === "done") expect(noteOf(result.end)).toBe("done and verified in 2 turn(s)");
    expect(await new BuildStore(root).read(DEMO)).toMatchObject({ status: "done", verified: true });
    expect(notified.map((e) => e.title)).toEqual(["otto build demo: done and verified"]);
    expect((await statusVerb(root)).output).toContain("| spec demo | done |");
  });

  it("a check that failed before the build ends it done but unverified: baseline and verdict in the state, the status view, the notification and the commit", async () => {
    const root = repoWith({ demo: tasksMd(1) });
    const notified: NotifyEvent[] = [];
    const { deps: d, builders } = deps(root, worker(root), notified);
    let runs = 0;
    const failing = (): CheckResult => ({
      command: "npm test",
      passed: false,
      exitCode: 1,
      timedOut: false,
      durationMs: 1,
      output: `run ${++runs}\n Tests  1 failed | 2 passed (3)`,
    });
    const [result] = await runBuild({ ...d, verify: ["npm test"], runChecks: async () => [failing()] }, [DEMO], {
      maxIterations: 10,
      stagnationLimit: 3,
    });
    // Baseline, after the task's turn, after the confirm turn: no fix turn in between.
    expect(runs).toBe(3);
    expect(builders[0]?.prompts.map((p) => (p.includes("checks failed") ? "fix" : p.includes("`VERIFIED`") ? "confirm" : "work"))).toEqual([
      "work",
      "confirm",
    ]);
    expect(result?.end).toMatchObject({ kind: "done", iterations: 2 });
    if (result?.end.kind === "done")
      expect(noteOf(result.end)).toBe("done, unverified: npm test fails (it failed before the build too), after 2 turn(s)");
    expect(result?.baseline).toBe("baseline: npm test: exit 1 (pre-existing, 1 failure)");
    const state = await new BuildStore(root).read(DEMO);
    expect(state).toMatchObject({ status: "done", verified: false, failing: [{ command: "npm test", ended: "exit 1", before: true }] });
    expect(state?.checkBaseline?.map((c) => c.output.split("\n")[0])).toEqual(["run 1"]);
    expect(notified.map((e) => e.title)).toEqual(["otto build demo: done, unverified: npm test fails (it failed before the build too)"]);
    expect((await statusVerb(root)).output).toContain("| spec demo | done, unverified: npm test fails (it failed before the build too) |");
    expect(execFileSync("git", ["log", "-1", "--format=%B"], { cwd: root, encoding: "utf8" })).toContain(
      "verify: npm test: exit 1, it failed before the build too (unverified).",
    );
  });

  it("a resumed loop keeps its first baseline: the checks are not taken again on a tree the builder already changed", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    let runs = 0;
    const check = (): CheckResult => ({
      command: "npm test",
      passed: false,
      exitCode: 1,
      timedOut: false,
      durationMs: 1,
      output: `run ${++runs}`,
    });
    const store = new BuildStore(root);
    // The first turn works a task, then the loop is asked to stop (as `/otto-build stop` does).
    const first = deps(root, async (turn, prompt) => {
      const reply = await worker(root)(turn, prompt);
      await store.requestStop(DEMO);
      return reply;
    });
    const [stopped] = await runBuild({ ...first.deps, verify: ["npm test"], runChecks: async () => [check()] }, [DEMO], {
      maxIterations: 10,
      stagnationLimit: 3,
    });
    expect(stopped?.end).toMatchObject({ kind: "stop", reason: "stop_requested" });
    expect((await store.read(DEMO))?.checkBaseline?.map((c) => c.output)).toEqual(["run 1"]);

    const resumed = deps(root, worker(root));
    const [r] = await runBuild({ ...resumed.deps, verify: ["npm test"], runChecks: async () => [check()] }, [DEMO], {
      maxIterations: 10,
      stagnationLimit: 3,
    });
    expect(r?.end).toMatchObject({ kind: "done", verdict: { verified: false, failing: [{ before: true }] } });
    expect(resumed.builders[0]?.prompts.some((p) => p.includes("checks failed"))).toBe(false);
    expect((await store.read(DEMO))?.checkBaseline?.map((c) => c.output)).toEqual(["run 1"]);
  });

  it("--all builds the incomplete specs in order and advances after each one", async () => {
    const root = repoWith({ "b-spec": tasksMd(1), "10-late": tasksMd(1), "2-early": tasksMd(1), finished: tasksMd(1, 1) });
    const targets = resolveTargets(root, { all: true });
    expect(targets.map((t) => t.name)).toEqual(["2-early", "10-late", "b-spec"]);
    const { deps: d } = deps(root, worker(root));
    const results = await runBuild(d, targets, { maxIterations: 10, stagnationLimit: 3 });
    expect(results.map((r) => [r.target.name, r.end.kind])).toEqual([
      ["2-early", "done"],
      ["10-late", "done"],
      ["b-spec", "done"],
    ]);
    const log = execFileSync("git", ["log", "--format=%s"], { cwd: root, encoding: "utf8" }).trim().split("\n");
    expect(log.slice(0, 3)).toEqual([
      "feat(b-spec): implementation complete",
      "feat(10-late): implementation complete",
      "feat(2-early): implementation complete",
    ]);
  });

  it("notifies on stagnation, keeps the state, and resumes a paused loop with its counters", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    const notified: NotifyEvent[] = [];
    const { deps: d } = deps(root, () => "nothing to do", notified);
    const [stalled] = await runBuild(d, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 2 });
    expect(stalled?.end).toMatchObject({ kind: "stop", reason: "stagnation" });
    expect(notified.map((e) => e.kind)).toEqual(["human_needed"]);
    expect(await new BuildStore(root).read({ kind: "spec", name: "demo" })).toMatchObject({ status: "stagnated", iteration: 2 });

    const paused = deps(root, () => {
      // The user writes in the builder's session during the turn.
      const builder = paused.builders[0];
      if (builder) builder.extraUserMessages = 1;
      return "hello";
    });
    const run = runBuild(paused.deps, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 5 });
    const [p] = await run;
    expect(p?.end.kind).toBe("pause");
    const state = await new BuildStore(root).read({ kind: "spec", name: "demo" });
    expect(state).toMatchObject({ status: "paused", iteration: 1 });

    const resumed = deps(root, worker(root));
    const [r] = await runBuild(resumed.deps, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 3 });
    expect(r?.end).toMatchObject({ kind: "done", iterations: 4 });
    // The resume goes on in the paused loop's session, where the user talked to the builder.
    const pausedSession = paused.builders[0]?.id;
    expect(resumed.resumes).toEqual([pausedSession]);
    expect(resumed.builders[0]?.id).toBe(pausedSession);
    expect(resumed.builders[0]?.prompts).toHaveLength(3);
    expect(r?.sessionID).toBe(pausedSession);
    expect(r?.sessionNote).toBeUndefined();
  });

  it("a resume whose builder session is gone goes on in a new one, and says so", async () => {
    const root = repoWith({ demo: tasksMd(1) });
    await new BuildStore(root).write({ ...DEMO_STATE, status: "stopped", sessionID: "ses_deleted" });
    const d = deps(root, worker(root));
    const [r] = await runBuild(d.deps, [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    expect(d.resumes).toEqual(["ses_deleted"]);
    expect(r?.sessionID).not.toBe("ses_deleted");
    expect(r?.sessionNote).toBe(
      `The builder session ses_deleted of the previous loop no longer exists; the loop goes on in a new session, ${r?.sessionID}.`,
    );
    expect(d.titles[0]).toContain("ses_deleted of the previous loop no longer exists");
    // The counters are resumed all the same: turn 1 was the stopped loop's.
    expect(r?.end).toMatchObject({ kind: "done", iterations: 3 });
  });

  it("refuses a second loop for a target whose loop runs in this process, saying who runs it and how to stop it", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    const first = deps(root, () => new Promise<string>(() => undefined));
    const running = runBuild(first.deps, [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    await vi.waitFor(() => expect(first.builders[0]?.prompts).toHaveLength(1));
    const second = deps(root, worker(root));
    const refused = await runBuild(second.deps, [DEMO], { maxIterations: 10, stagnationLimit: 3 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OttoError);
    expect(refused).toMatchObject({
      code: "build_running",
      message: `A build loop for 'demo' is already running (OpenCode process ${process.pid}, this one, builder session ${first.builders[0]?.id}, turn 1/10); a second one would work the same tasks.`,
      fix: "Stop it with /otto-build stop --spec demo (from any session), or watch it with /otto-build status.",
    });
    expect(second.builders).toHaveLength(0);
    // The refusal left the running loop alone: its stop request still reaches it.
    await new BuildStore(root).requestStop(DEMO);
    const [r] = await running;
    expect(r?.end).toMatchObject({ kind: "stop", reason: "stop_requested" });
    // The lock went with the loop: the next start runs.
    const [next] = await runBuild(second.deps, [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    expect(next?.end.kind).toBe("done");
  });

  it("takes over the state and the lock of a loop whose process died, resuming its counters and session", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    sessions.add("ses_crashed");
    await new BuildStore(root).write({ ...DEMO_STATE, status: "running", iteration: 2, sessionID: "ses_crashed", pid: DEAD_PID });
    // The dead process's lock: no longer refreshed, so older than proper-lockfile's stale limit.
    const lock = path.join(root, ".otto/build/demo.lock");
    fs.mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    const d = deps(root, worker(root));
    const [r] = await runBuild(d.deps, [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    expect(d.resumes).toEqual(["ses_crashed"]);
    expect(r?.end).toMatchObject({ kind: "done", iterations: 5 });
    expect(await new BuildStore(root).read(DEMO)).toMatchObject({ status: "done", sessionID: "ses_crashed", iteration: 5 });
    expect(fs.existsSync(lock)).toBe(false);
  });
});
