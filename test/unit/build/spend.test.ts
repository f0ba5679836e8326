import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BuildStore, archiveTarget, runBuild, type BuildDeps, type BuildTarget } from "../../../src/build/index.ts";
import { costBeforeRun, spendTable } from "../../../src/build/spend-views.ts";
import { recordIteration, TurnAccount } from "../../../src/build/spend.ts";
import { Account, ZERO_USAGE, type LedgerEntry, type Usage } from "../../../src/cost/index.ts";
import type { NotifyEvent } from "../../../src/notify/index.ts";
import { runGit } from "../../../src/workspace/index.ts";
import { FakeBuilder, completeNext, tasksMd, tempRepoDir } from "./fixtures.ts";

const NOW = new Date("2026-11-26T10:00:00Z");
const DEMO: BuildTarget = { kind: "spec", name: "demo" };
const call = (usd: number, input = 1000, output = 200): Usage => ({ ...ZERO_USAGE, requests: 1, input, output, usd });

function repo(tasks: string): string {
  const root = tempRepoDir();
  fs.mkdirSync(path.join(root, ".otto/specs/demo"), { recursive: true });
  fs.writeFileSync(path.join(root, ".otto/specs/demo/tasks.md"), tasks);
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: root, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" } });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "t");
  git("config", "user.email", "t@example.com");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  return root;
}

/**
 * A builder that does one task per turn and charges each turn's call to the account the loop gave
 * it, as the meter does; a turn whose charge reaches the budget fails with the budget stop, as a
 * session aborted by it does.
 */
function deps(root: string, usd: number, budget?: BuildDeps["budget"], notified: NotifyEvent[] = []): BuildDeps {
  let opened = 0;
  return {
    repoRoot: root,
    store: new BuildStore(root),
    openBuilder: async (_target, resume, account) =>
      new FakeBuilder(
        (_turn, prompt) => {
          account?.charge("mock/m1", call(usd));
          const stop = account?.stopped;
          if (stop) throw stop;
          if (prompt.includes("`VERIFIED`")) return "VERIFIED";
          completeNext(path.join(root, ".otto/specs/demo/tasks.md"));
          fs.writeFileSync(path.join(root, `work-${Date.now()}-${Math.random()}.txt`), "x");
          return "one more task done";
        },
        resume ?? `ses_${++opened}`,
      ),
    git: runGit,
    verify: [],
    runChecks: async () => [],
    archive: (target: BuildTarget) => archiveTarget(target, { repoRoot: root, now: () => NOW, openspec: async () => undefined }),
    notify: async (event) => {
      notified.push(event);
    },
    progress: () => undefined,
    now: () => NOW,
    pid: process.pid,
    pollMs: 5,
    ...(budget ? { budget } : {}),
  };
}

describe("build spend", () => {
  it("charges each turn to `iteration N` and the task it works, records them in the state and totals them", async () => {
    const root = repo(tasksMd(2));
    const notified: NotifyEvent[] = [];
    const [result] = await runBuild(deps(root, 0.01, undefined, notified), [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    expect(result?.end.kind).toBe("done");
    expect(result?.iterations.map((i) => [i.iteration, i.task, i.usage.usd])).toEqual([
      [1, "task-001", 0.01],
      [2, "task-002", 0.01],
      [3, undefined, 0.01],
    ]);
    expect(result?.spend).toMatchObject({ requests: 3, input: 3000, output: 600, usd: 0.03 });
    const state = await new BuildStore(root).read(DEMO);
    expect(state?.spend).toMatchObject({ requests: 3, usd: 0.03 });
    expect(state?.iterations).toHaveLength(3);
    // The end notification carries the total.
    expect(notified.map((n) => n.facts?.spent)).toEqual(["3.60k tokens, $0.03"]);
    expect(notified[0]?.text).toBe(
      "done, unverified: no checks found, after 3 turn(s) (set spec.verify to have otto run some); spent 3.60k tokens, $0.03",
    );
  });

  it("stops at the budget with the state resumable; the resumed run gets a new budget and the old spend stays on record", async () => {
    const root = repo(tasksMd(3));
    const notified: NotifyEvent[] = [];
    const [stopped] = await runBuild(deps(root, 0.01, { usd: 0.02 }, notified), [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    expect(stopped?.end).toMatchObject({ kind: "stop", reason: "budget", iterations: 1 });
    expect(stopped?.end.kind === "stop" && stopped.end.reason === "budget" && stopped.end.message).toBe(
      "Budget reached: spent $0.02 of $0.02 (build demo).",
    );
    expect(notified).toHaveLength(1);
    const state = await new BuildStore(root).read(DEMO);
    // The turn cut by the budget does not count: the resumed loop prompts it again.
    expect(state).toMatchObject({ status: "stopped", iteration: 1, spend: { requests: 2, usd: 0.02 } });

    const [resumed] = await runBuild(deps(root, 0.01, { usd: 1 }), [DEMO], { maxIterations: 10, stagnationLimit: 3 });
    expect(resumed?.end.kind).toBe("done");
    expect(resumed?.spend.usd).toBe(0.03);
    expect(resumed?.total.usd).toBe(0.05);
    const after = await new BuildStore(root).read(DEMO);
    expect(after?.spend?.usd).toBe(0.05);
    // Turn 2 was cut and done again: one record, both runs' spend.
    expect(after?.iterations?.map((i) => [i.iteration, i.task, i.usage.usd])).toEqual([
      [1, "task-001", 0.01],
      [2, "task-002", 0.02],
      [3, "task-003", 0.01],
      [4, undefined, 0.01],
    ]);
  });
});

it("a stagnated loop records what it spent, and its notification names it", async () => {
  const root = repo(tasksMd(2));
  const notified: NotifyEvent[] = [];
  const d = deps(root, 0.01, undefined, notified);
  d.openBuilder = async (_target, _resume, account) =>
    new FakeBuilder(() => {
      account?.charge("mock/m1", call(0.01));
      return "thinking";
    }, "ses_idle");
  const [result] = await runBuild(d, [DEMO], { maxIterations: 10, stagnationLimit: 2 });
  expect(result?.end).toMatchObject({ kind: "stop", reason: "stagnation" });
  expect((await new BuildStore(root).read(DEMO))?.spend).toMatchObject({ requests: 2, usd: 0.02 });
  expect(notified[0]?.text).toMatch(/^stopped: nothing changed .*; spent 2\.40k tokens, \$0\.02$/);
});

describe("TurnAccount", () => {
  it("charges the turn in progress, and its parents once; the ledger path is the turn's", () => {
    const run = new Account("build demo", { labels: { repo: "/r", build: "demo" } });
    const turns = new TurnAccount(run);
    const turn = turns.begin(2, "task-002");
    turns.charge("mock/m1", call(0.01));
    expect(turns.path).toEqual(["build demo", "iteration 2", "task task-002"]);
    turns.end();
    turns.charge("mock/m1", call(0.02));
    expect(turns.path).toEqual(["build demo"]);
    expect(turn.usage.usd).toBe(0.01);
    expect(run.usage.usd).toBe(0.03);
    expect(turns.labels).toEqual({ repo: "/r", build: "demo" });
  });
});

describe("build spend views", () => {
  it("merges a turn's records; the table's rows add up to the total", () => {
    const list = recordIteration(recordIteration([], { iteration: 1, task: "t1", usage: call(0.01) }), {
      iteration: 1,
      task: "t1",
      usage: call(0.02),
    });
    expect(list).toHaveLength(1);
    expect(list[0]?.usage.usd).toBe(0.03);
    const table = spendTable([{ target: DEMO, iterations: list }], { ...ZERO_USAGE, requests: 3, input: 3000, output: 600, usd: 0.05 });
    expect(table.split("\n")).toEqual([
      "| target | turn | task | tokens | cost |",
      "|---|---|---|---|---|",
      "| demo | 1 | t1 | 2.40k | $0.03 |",
      "|  | - | between turns | 1.20k | $0.02 |",
      "| **total** |  |  | 3.60k | $0.05 |",
    ]);
  });

  it("estimates from the median task of this repository, beside the budget", () => {
    const entry = (run: string, task: string, usd: number, repo = "/r"): LedgerEntry => ({
      at: NOW.toISOString(),
      session: "s",
      message: "m",
      model: "mock/m1",
      path: ["build demo", "iteration 1", task],
      labels: { repo, run, build: "demo" },
      usage: call(usd),
    });
    const entries = [
      entry("a", "task t1", 0.1),
      entry("a", "task t2", 0.3),
      entry("b", "task t1", 0.2),
      entry("b", "task t1", 0.05),
      entry("c", "task t1", 9, "/other"),
    ];
    expect(costBeforeRun(entries, "/r", { usd: 1 }, 4)).toBe(
      "comparable tasks here cost $0.25 each (the median of 3 on record): 4 task(s) left ≈ $1.00; budget in force: $1.00.",
    );
    expect(costBeforeRun(entries, "/r", undefined, 1)).toContain("budget in force: none");
    expect(costBeforeRun([], "/r", { usd: 1 }, 4)).toBeUndefined();
  });
});
