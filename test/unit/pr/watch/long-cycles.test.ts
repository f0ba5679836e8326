import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { acquireWatcherLock, heartbeatMs, holderAlive, readWatcherRecord, staleAfterMs } from "../../../../src/pr/watch/lock.ts";
import type { Clock } from "../../../../src/pr/watch/schedule.ts";
import { createWatcher } from "../../../../src/pr/watch/watcher.ts";
import type { CycleReport } from "../../../../src/pr/index.ts";
import { useTempDir } from "../support.ts";

/*
 * A fix runs inside a cycle and can take tens of minutes: the watcher's lock must stay fresh all
 * along (a heartbeat on its own timer), and cron ticks that come meanwhile are skipped, not queued.
 * The clock is fake: ticks and heartbeats fire when the test says so, time moves when it says so.
 */

const tempDir = useTempDir();
const INTERVAL = 60_000;

function fakeClock() {
  let now = Date.parse("2026-03-01T12:00:00Z");
  const ticks: Array<() => Promise<void>> = [];
  const beats = new Set<() => void>();
  const repeats: number[] = [];
  const clock: Clock = {
    now: () => new Date(now),
    sleep: async () => undefined,
    schedule: (_interval, tick) => {
      ticks.push(tick);
      return { stop: () => void ticks.splice(0), nextRun: () => new Date(now + INTERVAL) };
    },
    repeat: (ms, run) => {
      repeats.push(ms);
      beats.add(run);
      return () => void beats.delete(run);
    },
  };
  return {
    clock,
    repeats,
    advance: (ms: number) => void (now += ms),
    fire: async () => Promise.all(ticks.map((t) => t())),
    beat: () => [...beats].forEach((b) => b()),
    get beating() {
      return beats.size;
    },
  };
}

/** A cycle that blocks until released: a long fix. */
function longCycle() {
  let release = (): void => undefined;
  let entered = (): void => undefined;
  let count = 0;
  const cycle = async (): Promise<CycleReport> => {
    count++;
    entered();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { started: "s", finished: "f", results: [] };
  };
  return {
    cycle,
    get count() {
      return count;
    },
    /** Resolves once the next cycle has started. */
    started: () =>
      new Promise<void>((resolve) => {
        entered = resolve;
      }),
    release: () => release(),
  };
}

const lockIn = (dir: string, alive: (pid: number) => boolean) => ({
  file: path.join(dir, "watcher.json"),
  isAlive: alive,
  hostname: "box",
});

describe("the watcher during long cycles", () => {
  it("keeps its lock fresh on a timer of its own while one cycle runs far past the stale limit", async () => {
    const dir = tempDir();
    const fake = fakeClock();
    const lock = lockIn(dir, () => true);
    const long = longCycle();
    const watcher = createWatcher({ lock, clock: fake.clock, pid: 100, intervalMs: INTERVAL, cycle: long.cycle, log: () => undefined });
    const started = long.started();
    await watcher.start("foreground");
    await started;
    expect(fake.repeats).toEqual([heartbeatMs(INTERVAL)]);
    expect(heartbeatMs(INTERVAL)).toBeLessThan(staleAfterMs(INTERVAL));

    // Forty minutes of one cycle, a heartbeat every half minute.
    for (let elapsed = 0; elapsed < 40 * 60_000; elapsed += heartbeatMs(INTERVAL)) {
      fake.advance(heartbeatMs(INTERVAL));
      fake.beat();
    }
    const now = fake.clock.now().toISOString();
    await vi.waitFor(async () => expect((await readWatcherRecord(lock.file))?.heartbeat).toBe(now));
    expect(holderAlive(await readWatcherRecord(lock.file), { now: fake.clock.now, isAlive: () => true, hostname: "box" })).toBe(true);
    // Another process (a live PID, a fresh heartbeat) cannot take the lock over mid-fix.
    await expect(
      acquireWatcherLock({ ...lock, now: fake.clock.now }, { pid: 200, token: "other", mode: "once", intervalMs: INTERVAL }),
    ).rejects.toMatchObject({ code: "watcher_running" });

    long.release();
    await watcher.stop();
    // The heartbeat stops with the watcher.
    expect(fake.beating).toBe(0);
    expect((await readWatcherRecord(lock.file))?.stopped).toBeDefined();
  });

  it("skips ticks while a cycle still runs, logs that once per long cycle, and ticks again after it", async () => {
    const dir = tempDir();
    const fake = fakeClock();
    const logs: string[] = [];
    const long = longCycle();
    const watcher = createWatcher({
      lock: lockIn(dir, () => true),
      clock: fake.clock,
      pid: 100,
      intervalMs: INTERVAL,
      cycle: long.cycle,
      log: (_l, m) => logs.push(m),
    });
    let started = long.started();
    await watcher.start("foreground");
    await started;
    await Promise.all([fake.fire(), fake.fire(), fake.fire()]);
    const skipped = () => logs.filter((l) => l.includes("still running"));
    expect(long.count).toBe(1);
    expect(skipped()).toHaveLength(1);

    // (Had they queued, the ticks above would still be waiting for the blocked cycle.)
    long.release();
    await vi.waitFor(async () => expect((await readWatcherRecord(path.join(dir, "watcher.json")))?.last_cycle).toBeDefined());
    await new Promise((r) => setImmediate(r));

    // The next tick runs a cycle; ticks during that one are skipped and logged once more.
    started = long.started();
    const tick = fake.fire();
    await started;
    expect(long.count).toBe(2);
    await fake.fire();
    await fake.fire();
    expect(long.count).toBe(2);
    expect(skipped()).toHaveLength(2);
    long.release();
    await tick;
    await watcher.stop();
  });

  it("keeps the lock of a single forced cycle (watch once) fresh too, and lets go after it", async () => {
    const dir = tempDir();
    const fake = fakeClock();
    const lock = lockIn(dir, () => true);
    const long = longCycle();
    const watcher = createWatcher({ lock, clock: fake.clock, pid: 100, intervalMs: INTERVAL, cycle: long.cycle, log: () => undefined });
    const started = long.started();
    const once = watcher.runOnce();
    await started;
    expect(fake.beating).toBe(1);
    fake.advance(staleAfterMs(INTERVAL) * 3);
    fake.beat();
    const now = fake.clock.now().toISOString();
    await vi.waitFor(async () => expect((await readWatcherRecord(lock.file))?.heartbeat).toBe(now));
    await expect(
      acquireWatcherLock({ ...lock, now: fake.clock.now }, { pid: 200, token: "other", mode: "once", intervalMs: INTERVAL }),
    ).rejects.toMatchObject({ code: "watcher_running" });
    long.release();
    await once;
    expect(fake.beating).toBe(0);
    expect((await readWatcherRecord(lock.file))?.stopped).toBeDefined();
  });

  it("stops when its heartbeat finds that another watcher took the lock over", async () => {
    const dir = tempDir();
    const fake = fakeClock();
    // Everyone looks dead to everyone: the other process takes over.
    const lock = lockIn(dir, () => false);
    const logs: string[] = [];
    const long = longCycle();
    const watcher = createWatcher({
      lock,
      clock: fake.clock,
      pid: 100,
      intervalMs: INTERVAL,
      cycle: long.cycle,
      log: (_l, m) => logs.push(m),
    });
    const started = long.started();
    await watcher.start("detached");
    await started;
    await acquireWatcherLock({ ...lock, now: fake.clock.now }, { pid: 200, token: "thief", mode: "foreground", intervalMs: INTERVAL });
    fake.beat();
    await vi.waitFor(() => expect(watcher.running).toBe(false));
    expect(logs.some((l) => l.includes("lost its lock"))).toBe(true);
    expect(fake.beating).toBe(0);
    // The record is the thief's, untouched by the release.
    expect(await readWatcherRecord(lock.file)).toMatchObject({ token: "thief" });
    expect((await readWatcherRecord(lock.file))?.stopped).toBeUndefined();
    long.release();
  });
});
