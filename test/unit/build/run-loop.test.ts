import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runLoop, taskSource, type LoopDeps } from "../../../src/build/index.ts";
import { OttoError } from "../../../src/core/index.ts";
import type { CheckResult } from "../../../src/workspace/index.ts";
import { ABORT, FakeBuilder, completeNext, tasksMd, tempRepoDir, type Step } from "./fixtures.ts";

const check = (passed: boolean): CheckResult => ({
  command: "npm test",
  exitCode: passed ? 0 : 1,
  passed,
  timedOut: false,
  durationMs: 1,
  output: passed ? "ok" : "1 failing",
});

/** A vitest run that fails `failures` tests (its count is what compareToBaseline reads). */
const failing = (failures: number): CheckResult => ({
  command: "npm test",
  exitCode: 1,
  passed: false,
  timedOut: false,
  durationMs: 1,
  output: ` Tests  ${failures} failed | 4 passed (${failures + 4})`,
});

function setup(n: number, step: Step, options: { verify?: () => boolean; stop?: () => boolean } = {}) {
  const repoRoot = tempRepoDir();
  const source = taskSource(repoRoot, { kind: "spec", name: "demo" });
  fs.mkdirSync(path.dirname(source.file), { recursive: true });
  fs.writeFileSync(source.file, tasksMd(n));
  let tree = 0;
  const builder = new FakeBuilder(step);
  const saved: number[] = [];
  const titles: string[] = [];
  const deps: LoopDeps = {
    repoRoot,
    source,
    builder,
    fingerprint: async () => String(tree),
    verify: options.verify ? ["npm test"] : [],
    runChecks: async () => (options.verify ? [check(options.verify())] : []),
    stopRequested: async () => options.stop?.() ?? false,
    save: async ({ iteration }) => {
      saved.push(iteration);
    },
    progress: (title) => titles.push(title),
    pollMs: 5,
  };
  return { deps, builder, source, saved, titles, touch: () => tree++ };
}

describe("runLoop", () => {
  it("prompts once per task, then verifies, and ends when VERIFIED comes with passing checks", async () => {
    const env = setup(3, (turn) => {
      if (turn <= 3) {
        completeNext(env.source.file);
        env.touch();
        return `did task ${turn}`;
      }
      return "All good.\nVERIFIED";
    });
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end.kind).toBe("done");
    expect(env.builder.prompts).toHaveLength(4);
    expect(env.builder.prompts[0]).toContain("Tasks remaining 3/3");
    expect(env.builder.prompts[1]).toContain("Tasks remaining 2/3; next: task-002 Step 2");
    expect(env.builder.prompts[2]).toContain("Tasks remaining 1/3; next: task-003 Step 3");
    expect(env.builder.prompts[3]).toContain("`VERIFIED`");
    expect(env.saved).toEqual([1, 1, 2, 2, 3, 3, 4, 4]);
    // The tool's title follows the loop: turn, tasks remaining, next task, then the verify phase.
    expect(env.titles).toEqual([
      "otto build demo: turn 1/10 · Tasks remaining 3/3; next: task-001 Step 1",
      "otto build demo: turn 2/10 · Tasks remaining 2/3; next: task-002 Step 2",
      "otto build demo: turn 3/10 · Tasks remaining 1/3; next: task-003 Step 3",
      "otto build demo: turn 4/10 · verifying",
    ]);
  });

  it("stops after K turns in a row in which nothing changed", async () => {
    const env = setup(2, () => "thinking…");
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "stop", reason: "stagnation", iterations: 3 });
  });

  it("reminds the builder when files changed but the tasks file did not", async () => {
    const env = setup(2, (turn) => {
      if (turn === 1) env.touch();
      else completeNext(env.source.file);
      return "worked";
    });
    await runLoop(env.deps, { maxIterations: 3, stagnationLimit: 5 });
    expect(env.builder.prompts[1]).toContain("Reminder: files changed in your last turn but the tasks file did not");
    expect(env.builder.prompts[2]).not.toContain("Reminder");
  });

  it("reminds the builder when its reply claims work done but the tasks file did not change", async () => {
    const env = setup(2, (turn) => {
      if (turn === 1) return "Finished task-001.";
      completeNext(env.source.file);
      return "Finished task-001, for real.";
    });
    await runLoop(env.deps, { maxIterations: 3, stagnationLimit: 5 });
    expect(env.builder.prompts[1]).toContain("Reminder: your last answer says work was done, but the tasks file did not change.");
    expect(env.builder.prompts[2]).not.toContain("Reminder");
  });

  it("a claim of progress with nothing changed still stops after K turns", async () => {
    const env = setup(2, () => "Done with task-001.");
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "stop", reason: "stagnation", iterations: 3 });
    expect(env.builder.prompts.slice(1).every((p) => p.includes("your last answer says work was done"))).toBe(true);
  });

  it("stops at max iterations", async () => {
    const env = setup(5, () => {
      env.touch();
      return "busy";
    });
    const end = await runLoop(env.deps, { maxIterations: 2, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "stop", reason: "max_iterations", iterations: 2 });
    expect(env.builder.prompts).toHaveLength(2);
  });

  it("pauses when someone else wrote in the builder's session", async () => {
    const env = setup(3, () => {
      completeNext(env.source.file);
      env.builder.extraUserMessages = 1;
      return "answered the user";
    });
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "pause", reason: "interrupted", iterations: 1 });
  });

  it("pauses when someone else aborted the turn", async () => {
    const env = setup(3, () => ABORT);
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "pause", reason: "interrupted" });
  });

  it("stop aborts the running turn", async () => {
    let stop = false;
    const env = setup(
      3,
      () => {
        stop = true;
        return new Promise<string>(() => undefined);
      },
      { stop: () => stop },
    );
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "stop", reason: "stop_requested", iterations: 1 });
    expect(env.builder.aborted).toBe(1);
  });

  it("sends the failing checks for fixes, and accepts VERIFIED only once they pass", async () => {
    let fixed = false;
    const env = setup(
      1,
      (turn, prompt) => {
        if (turn === 1) {
          completeNext(env.source.file);
          return "done.\nVERIFIED";
        }
        if (prompt.includes("the project's checks failed")) {
          env.touch();
          if (turn < 3) return "VERIFIED";
          fixed = true;
          return "fixed the failing test";
        }
        return "VERIFIED";
      },
      { verify: () => fixed },
    );
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end.kind).toBe("done");
    // Turn 1 claimed VERIFIED while the checks failed: not accepted; turn 2 still failing; turn 3 fixed; turn 4 confirms.
    expect(env.builder.prompts.map((p) => (p.includes("checks failed") ? "fix" : p.includes("`VERIFIED`") ? "confirm" : "work"))).toEqual([
      "work",
      "fix",
      "fix",
      "confirm",
    ]);
    expect(env.builder.prompts[1]).toContain("1 failing");
  });

  it("pauses when the turn's reply came from someone else's message (another agent answered last)", async () => {
    const env = setup(3, () => {
      env.builder.extraUserMessages = 1;
      throw new OttoError("agent_mismatch", "Asked for agent otto-executor but the reply came from agent build");
    });
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "pause", reason: "interrupted" });
  });

  it("ends failed, naming the call, when otto stopped the builder for making the same tool call over and over", async () => {
    const env = setup(2, () => {
      throw new OttoError("tool_loop", "stopped: called read `a.ts` with the same arguments 5 times");
    });
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "failed", reason: "stopped: called read `a.ts` with the same arguments 5 times", iterations: 1 });
  });

  it("stops when the builder gives up with TASK_FAILED", async () => {
    const env = setup(2, () => "no way\nTASK_FAILED: the API does not exist");
    const end = await runLoop(env.deps, { maxIterations: 10, stagnationLimit: 3 });
    expect(end).toMatchObject({ kind: "failed", reason: "the API does not exist" });
  });

  it("a check that failed before the build and is not worse sends no fix: the builder confirms, the loop ends done and unverified", async () => {
    const env = setup(1, (turn) => {
      if (turn === 1) {
        completeNext(env.source.file);
        env.touch();
        return "done with the task";
      }
      return "Reviewed.\nVERIFIED";
    });
    const end = await runLoop(
      { ...env.deps, verify: ["npm test"], baseline: [failing(2)], runChecks: async () => [failing(2)] },
      { maxIterations: 10, stagnationLimit: 3 },
    );
    expect(end).toMatchObject({
      kind: "done",
      iterations: 2,
      verdict: { verified: false, failing: [{ command: "npm test", ended: "exit 1", before: true }] },
    });
    expect(env.builder.prompts.map((p) => (p.includes("checks failed") ? "fix" : p.includes("`VERIFIED`") ? "confirm" : "work"))).toEqual([
      "work",
      "confirm",
    ]);
    // The confirm turn names the failure as the project's, not the builder's to fix.
    expect(env.builder.prompts[1]).toContain("npm test: failed before the build too (2 failures), not worse (2 now)");
    expect(env.builder.prompts[1]).not.toContain("otto's checks pass:");
  });

  it("a pre-existing failure that got worse, or a new one, still gets fix turns, and only the build's failures go in them", async () => {
    let worse = true;
    const env = setup(1, (turn, prompt) => {
      if (turn === 1) {
        completeNext(env.source.file);
        env.touch();
        return "done";
      }
      if (prompt.includes("checks failed")) {
        env.touch();
        worse = false;
        return "fixed what I broke";
      }
      return "VERIFIED";
    });
    const lint = (passed: boolean): CheckResult => ({
      command: "npm run lint",
      exitCode: passed ? 0 : 1,
      passed,
      timedOut: false,
      durationMs: 1,
      output: passed ? "" : "lint broke",
    });
    const end = await runLoop(
      {
        ...env.deps,
        verify: ["npm test", "npm run lint"],
        baseline: [failing(2), lint(false)],
        runChecks: async () => [failing(worse ? 3 : 2), lint(false)],
      },
      { maxIterations: 10, stagnationLimit: 3 },
    );
    expect(env.builder.prompts.map((p) => (p.includes("checks failed") ? "fix" : p.includes("`VERIFIED`") ? "confirm" : "work"))).toEqual([
      "work",
      "fix",
      "confirm",
    ]);
    // The worse test run goes back; the lint failure, there before and no worse, does not.
    expect(env.builder.prompts[1]).toContain("3 failed");
    expect(env.builder.prompts[1]).not.toContain("npm run lint");
    expect(end).toMatchObject({ kind: "done", iterations: 3, verdict: { verified: false } });
  });

  it("a builder that never says VERIFIED over a pre-existing failure still ends: stagnation, not a fix loop", async () => {
    const env = setup(1, (turn) => {
      if (turn === 1) completeNext(env.source.file);
      return "looked at it";
    });
    const end = await runLoop(
      { ...env.deps, verify: ["npm test"], baseline: [failing(1)], runChecks: async () => [failing(1)] },
      { maxIterations: 50, stagnationLimit: 3 },
    );
    expect(end).toMatchObject({ kind: "stop", reason: "stagnation", iterations: 4 });
    expect(env.builder.prompts.some((p) => p.includes("checks failed"))).toBe(false);
  });
});
