import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addPr, createPrStore, createRegistry, runCycle, type FailureContext } from "../../../../src/pr/index.ts";
import type { PrContext } from "../../../../src/pr/context/context.ts";
import { createBackgroundFixes, handOverFix } from "../../../../src/pr/watch/fixes.ts";
import { readWatcherRecord } from "../../../../src/pr/watch/lock.ts";
import type { Clock } from "../../../../src/pr/watch/schedule.ts";
import { createWatcher } from "../../../../src/pr/watch/watcher.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../../support/fake-github/index.ts";
import { testConfig, testDeps, useTempDir } from "../support.ts";

const tempDir = useTempDir();

/** A fix that runs until its signal fires, then takes a moment to wind down (a session abort, a check killed). */
function hangingFix(order: string[]) {
  let started = 0;
  const run = async (label: string, signal: AbortSignal): Promise<void> => {
    started++;
    order.push(`${label} started`);
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    order.push(`${label} aborted`);
    await new Promise((r) => setTimeout(r, 20));
    order.push(`${label} wound down`);
    throw new Error("session aborted");
  };
  return {
    run,
    get started() {
      return started;
    },
  };
}

describe("background fixes", () => {
  it("runs at most one fix per PR, others beside it, and cancel aborts and waits for each", async () => {
    const order: string[] = [];
    const logs: string[] = [];
    const fixes = createBackgroundFixes((_level, message) => void logs.push(message));
    const fix = hangingFix(order);
    expect(fixes.start("a", (s) => fix.run("a", s))).toBe(true);
    expect(fixes.start("a", (s) => fix.run("a again", s))).toBe(false);
    expect(fixes.start("b", (s) => fix.run("b", s))).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(fixes.keys().sort()).toEqual(["a", "b"]);
    expect(fix.started).toBe(2);
    await fixes.cancel("stopping");
    order.push("cancel resolved");
    expect(order.indexOf("cancel resolved")).toBeGreaterThan(order.indexOf("a wound down"));
    expect(order.indexOf("cancel resolved")).toBeGreaterThan(order.indexOf("b wound down"));
    expect(fixes.keys()).toEqual([]);
    // Closed after a cancel: a cycle still finishing cannot start one nobody would cancel.
    expect(fixes.start("c", (s) => fix.run("c", s))).toBe(false);
    fixes.reopen();
    expect(fixes.start("c", async () => undefined)).toBe(true);
    await fixes.idle();
    expect(logs).toContain("fix flow for a cancelled");
  });
});

describe("the watcher with a hanging fix (fake GitHub, fake clock)", () => {
  let gh: FakeGithub;
  let ctx: PrContext;
  let now: number;
  beforeEach(async () => {
    gh = await startFakeGithub();
    const config = testConfig({ pr: { request_timeout: "2s", providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } });
    now = Date.parse("2026-03-01T12:00:00Z");
    ctx = {
      loaded: { config, sources: {}, secrets: [], files: { user: "", repo: undefined }, found: { user: false, repo: false } },
      store: createPrStore(path.join(tempDir(), "prs")),
      registry: createRegistry(testDeps(config)),
      notify: async () => ({ delivered: [], failed: [] }),
      dataDir: "",
    };
  });
  afterEach(async () => gh.close());

  it("keeps polling and answering the other PR while one PR's fix hangs, hands no second fix, and stop cancels and waits", async () => {
    const red = gh.state.addPr({ number: 1 });
    gh.state.setChecks(red, [{ name: "build", conclusion: "failure" }]);
    const other = gh.state.addPr({ number: 2 });
    gh.state.setChecks(other, [{ name: "build", status: "in_progress" }]);
    await addPr(ctx, { text: "https://github.com/octo/app/pull/1", now: new Date(now) });
    await addPr(ctx, { text: "https://github.com/octo/app/pull/2", now: new Date(now) });

    const order: string[] = [];
    const fix = hangingFix(order);
    const handed: string[] = [];
    const fixes = createBackgroundFixes(() => undefined);
    const onFailure = handOverFix<FailureContext>(
      fixes,
      (failure, signal) => {
        handed.push(failure.doc.key);
        return fix.run(failure.doc.key, signal);
      },
      () => undefined,
    );
    const ticks: Array<() => Promise<void>> = [];
    const clock: Clock = {
      now: () => new Date(now),
      sleep: async () => undefined,
      schedule: (_ms, tick) => {
        ticks.push(tick);
        return { stop: () => void ticks.splice(0), nextRun: () => new Date(now + 60_000) };
      },
      repeat: () => () => undefined,
    };
    const lockFile = path.join(tempDir(), "watcher.json");
    let cycles = 0;
    const watcher = createWatcher({
      lock: { file: lockFile, isAlive: () => true },
      clock,
      pid: 4242,
      intervalMs: 60_000,
      cycle: async ({ force }) => {
        cycles++;
        return runCycle({
          ...ctx,
          now: () => new Date((now += 1000)),
          log: () => undefined,
          intervalMs: 60_000,
          fullPollMs: 10 * 60_000,
          concurrency: 4,
          force,
          onFailure,
        });
      },
      log: () => undefined,
      background: fixes,
    });

    // First cycle (at start): PR 1 is red and its fix starts and hangs; the cycle does not wait for it.
    await watcher.start("foreground");
    // Queued behind the first cycle: it returns only if that cycle did not wait for the fix.
    await watcher.runOnce();
    expect(cycles).toBe(2);
    expect(fix.started).toBe(1);
    expect(fixes.keys()).toEqual(["github-octo-app-1"]);

    // PR 2 goes green: the next cycle polls it and posts its success comment while the fix hangs.
    gh.state.setChecks(other, [{ name: "build" }]);
    // PR 1 gets a new red commit: a new failure, but its fix still runs, so no second fix.
    gh.state.setChecks(red, [{ name: "build", conclusion: "failure" }], gh.state.pushCommit(red));
    await watcher.runOnce();
    expect(cycles).toBe(3);
    expect(gh.state.comments.filter((c) => c.body.includes("all checks pass"))).toHaveLength(1);
    expect((await ctx.store.read("github-octo-app-2"))?.data.status).toBe("green");
    expect((await ctx.store.read("github-octo-app-1"))?.data.head_sha).toBe(red.head.sha);
    expect(handed).toEqual(["github-octo-app-1"]);

    // Stop: the fix's signal fires, stop waits for it to wind down, then releases the lock.
    await watcher.stop();
    order.push("stop resolved");
    expect(order).toEqual(["github-octo-app-1 started", "github-octo-app-1 aborted", "github-octo-app-1 wound down", "stop resolved"]);
    expect((await readWatcherRecord(lockFile))?.stopped).toBeDefined();
    expect(watcher.running).toBe(false);
  });
});
