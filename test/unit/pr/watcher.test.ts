import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  acquireWatcherLock,
  holderAlive,
  readWatcherRecord,
  releaseWatcherLock,
  staleAfterMs,
  type LockDeps,
} from "../../../src/pr/watch/lock.ts";
import { cronFor, type Clock } from "../../../src/pr/watch/schedule.ts";
import { createWatcher } from "../../../src/pr/watch/watcher.ts";
import type { CycleReport } from "../../../src/pr/index.ts";
import { hostKind } from "../../../src/pr/watch/host.ts";
import { renderUnit } from "../../../src/pr/watch/systemd.ts";
import { useTempDir } from "./support.ts";

const tempDir = useTempDir();

/** A clock whose schedule fires only when the test says so. */
function fakeClock(start = Date.parse("2026-03-01T12:00:00Z")) {
  let now = start;
  const ticks: Array<() => Promise<void>> = [];
  let stopped = 0;
  const clock: Clock = {
    now: () => new Date(now),
    sleep: async () => undefined,
    schedule: (_interval, tick) => {
      ticks.push(tick);
      return { stop: () => void stopped++, nextRun: () => new Date(now + 60_000) };
    },
  };
  return {
    clock,
    advance: (ms: number) => void (now += ms),
    fire: async () => Promise.all(ticks.map((t) => t())),
    get stopped() {
      return stopped;
    },
  };
}

const report = (started: string): CycleReport => ({
  started,
  finished: started,
  results: [{ key: "github-o-r-1", outcome: "unchanged", status: "watching", summary: "1/1 passing", events: [] }],
});

describe("the watcher lock", () => {
  const lockIn = (dir: string, alive: Set<number>, now: () => Date): LockDeps => ({
    file: path.join(dir, "watcher.json"),
    now,
    isAlive: (pid) => alive.has(pid),
    hostname: "box",
  });

  it("refuses a second live watcher and takes over a dead or silent one", async () => {
    const dir = tempDir();
    let now = Date.parse("2026-03-01T12:00:00Z");
    const alive = new Set([100, 200]);
    const lock = lockIn(dir, alive, () => new Date(now));
    expect(await acquireWatcherLock(lock, { pid: 100, token: "a", mode: "foreground", intervalMs: 60_000 })).toEqual({});
    await expect(acquireWatcherLock(lock, { pid: 200, token: "b", mode: "once", intervalMs: 60_000 })).rejects.toMatchObject({
      code: "watcher_running",
      message: expect.stringContaining("pid 100") as unknown,
    });
    // The holder dies: its lock is stale and taken over.
    alive.delete(100);
    expect(await acquireWatcherLock(lock, { pid: 200, token: "b", mode: "detached", intervalMs: 60_000 })).toEqual({ replaced: 100 });
    // A live PID whose heartbeat stopped three intervals ago counts as stuck.
    now += staleAfterMs(60_000) + 1;
    expect(await acquireWatcherLock(lock, { pid: 100, token: "c", mode: "once", intervalMs: 60_000 })).toEqual({ replaced: 200 });
    await releaseWatcherLock(lock, "c");
    const record = await readWatcherRecord(lock.file);
    expect(record?.stopped).toBeDefined();
    expect(holderAlive(record, lock)).toBe(false);
    // Releasing with a token that no longer holds the lock changes nothing.
    await releaseWatcherLock(lock, "a");
    expect((await readWatcherRecord(lock.file))?.token).toBe("c");
  });

  it("on another host trusts only the heartbeat", async () => {
    const dir = tempDir();
    const now = new Date("2026-03-01T12:00:00Z");
    await acquireWatcherLock(
      { ...lockIn(dir, new Set(), () => now), hostname: "other" },
      { pid: 1, token: "x", mode: "service", intervalMs: 60_000 },
    );
    await expect(
      acquireWatcherLock(
        lockIn(dir, new Set(), () => now),
        { pid: 2, token: "y", mode: "once", intervalMs: 60_000 },
      ),
    ).rejects.toMatchObject({ code: "watcher_running" });
  });
});

describe("createWatcher", () => {
  it("runs a cycle at start and on every tick, never two at once, and records them in the lock", async () => {
    const dir = tempDir();
    const fake = fakeClock();
    const lock = { file: path.join(dir, "watcher.json"), isAlive: () => true, hostname: "box" };
    let running = 0;
    let maxRunning = 0;
    const forced: boolean[] = [];
    const watcher = createWatcher({
      lock,
      clock: fake.clock,
      pid: 100,
      intervalMs: 60_000,
      cycle: async ({ force }) => {
        forced.push(force);
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return report(fake.clock.now().toISOString());
      },
      log: () => undefined,
    });
    await watcher.start("foreground");
    // Each tick's promise and the forced run's are the events that would carry a second cycle at
    // once or a third one: all have settled here, so nothing is left to run.
    await Promise.all([fake.fire(), fake.fire(), watcher.runOnce()]);
    expect(maxRunning).toBe(1);
    expect(forced.filter((f) => f)).toEqual([true]);
    // Ticks that come while a cycle runs are skipped (src/pr/watch/watcher.ts); a forced run waits its turn.
    expect(forced).toEqual([false, true]);
    await fake.fire();
    expect(forced).toEqual([false, true, false]);
    const record = await readWatcherRecord(lock.file);
    expect(record).toMatchObject({
      pid: 100,
      mode: "foreground",
      next_cycle: expect.any(String) as unknown,
      last_cycle: { results: [{ key: "github-o-r-1" }] },
    });
    // A second watcher (another process) is refused while this one runs.
    const other = createWatcher({
      lock: { ...lock, isAlive: () => true },
      clock: fake.clock,
      pid: 200,
      intervalMs: 60_000,
      cycle: async () => report(""),
      log: () => undefined,
    });
    await expect(other.runOnce()).rejects.toMatchObject({ code: "watcher_running" });
    await watcher.stop();
    expect(fake.stopped).toBe(1);
    expect((await readWatcherRecord(lock.file))?.stopped).toBeDefined();
    // Now `once` from the other process takes the lock, runs and lets go.
    expect((await other.runOnce()).results).toHaveLength(1);
    expect((await readWatcherRecord(lock.file))?.mode).toBe("once");
    expect(fs.existsSync(`${lock.file}.lock`)).toBe(false);
  });

  it("stops when another watcher took its lock over", async () => {
    const dir = tempDir();
    const fake = fakeClock();
    const lock = { file: path.join(dir, "watcher.json"), isAlive: () => false, hostname: "box" };
    const logs: string[] = [];
    const watcher = createWatcher({
      lock,
      clock: fake.clock,
      pid: 1,
      intervalMs: 60_000,
      cycle: async () => report(""),
      log: (_l, m) => logs.push(m),
    });
    await watcher.start("detached");
    // The first cycle has ended once it wrote its summary into the lock.
    await vi.waitFor(async () => expect((await readWatcherRecord(lock.file))?.last_cycle).toBeDefined());
    // Another process saw pid 1 as dead and took over.
    await acquireWatcherLock({ ...lock, now: fake.clock.now }, { pid: 2, token: "thief", mode: "foreground", intervalMs: 60_000 });
    await fake.fire();
    expect(watcher.running).toBe(false);
    expect(logs.some((l) => l.includes("cycle failed"))).toBe(true);
    expect((await readWatcherRecord(lock.file))?.token).toBe("thief");
  });
});

describe("schedule, host and unit", () => {
  it("turns poll intervals into cron steps that divide their unit", () => {
    expect(cronFor(2 * 60_000)).toEqual({ expression: "0 */2 * * * *", everyMs: 120_000 });
    expect(cronFor(45_000)).toEqual({ expression: "*/30 * * * * *", everyMs: 30_000 });
    expect(cronFor(500)).toEqual({ expression: "*/1 * * * * *", everyMs: 1000 });
    expect(cronFor(7 * 60_000)).toEqual({ expression: "0 */6 * * * *", everyMs: 360_000 });
    expect(cronFor(5 * 3_600_000)).toEqual({ expression: "0 0 */4 * * *", everyMs: 4 * 3_600_000 });
    expect(cronFor(3 * 86_400_000).expression).toBe("0 0 0 * * *");
  });

  it("knows a headless opencode run from serve and the TUI", () => {
    expect(hostKind(["bun", "/$bunfs/root/src/index.js", "run", "hi"])).toBe("run");
    expect(hostKind(["bun", "/$bunfs/root/src/index.js", "serve", "--port", "1"])).toBe("serve");
    expect(hostKind(["bun", "/$bunfs/root/src/index.js"])).toBe("tui");
  });

  it("writes a systemd unit without credentials: the server's password comes from otto's EnvironmentFile", () => {
    const unit = renderUnit({
      opencode: "/opt/opencode",
      directory: "/home/me/src",
      port: 4097,
      env: { PATH: "/usr/bin", GITHUB_TOKEN: "ghp_secret", XDG_DATA_HOME: "/d" },
      environmentFile: "/d/otto/watch-server.env",
    });
    expect(unit).toContain("EnvironmentFile=/d/otto/watch-server.env");
    expect(unit).not.toContain("OPENCODE_SERVER_PASSWORD=");
    expect(unit).toContain('ExecStart="/opt/opencode" serve --hostname 127.0.0.1 --port 4097');
    expect(unit).toContain("Environment=OTTO_WATCH=1");
    expect(unit).toContain('Environment="XDG_DATA_HOME=/d"');
    expect(unit).not.toContain("ghp_secret");
    expect(unit).toContain("Restart=on-failure");
  });
});
