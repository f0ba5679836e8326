import { randomUUID } from "node:crypto";
import { formatError } from "../../core/index.ts";
import type { CycleReport } from "./cycle.ts";
import { acquireWatcherLock, releaseWatcherLock, touchWatcherLock, type CycleSummary, type LockDeps, type WatchMode } from "./lock.ts";
import type { Clock, Scheduled } from "./schedule.ts";

export interface WatcherOptions {
  lock: Omit<LockDeps, "now">;
  clock: Clock;
  pid: number;
  intervalMs: number;
  /** One cycle over every tracked PR (config is read again each time). */
  cycle(options: { force: boolean }): Promise<CycleReport>;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
}

export interface Watcher {
  readonly running: boolean;
  readonly mode: WatchMode | undefined;
  /** Takes the lock, runs a first cycle now and then every interval. */
  start(mode: Exclude<WatchMode, "once">): Promise<{ replaced?: number }>;
  stop(): Promise<void>;
  /** One forced cycle now: through the running schedule if there is one, else under the lock. */
  runOnce(): Promise<CycleReport>;
  nextRun(): Date | undefined;
}

export function summarize(report: CycleReport): CycleSummary {
  return {
    started: report.started,
    finished: report.finished,
    results: report.results.map((r) => ({ key: r.key, outcome: r.outcome, status: r.status, summary: r.summary, ...(r.error ? { error: r.error } : {}) })),
  };
}

/** The PR watcher of one process: a schedule, the cross-process lock, and cycles that never overlap. */
export function createWatcher(options: WatcherOptions): Watcher {
  const lock: LockDeps = { ...options.lock, now: () => options.clock.now() };
  let token: string | undefined;
  let mode: WatchMode | undefined;
  let scheduled: Scheduled | undefined;
  // Cycles run one after another, whether scheduled or asked for.
  let chain: Promise<unknown> = Promise.resolve();

  function serialize<T>(run: () => Promise<T>): Promise<T> {
    const next = chain.then(run, run);
    chain = next.catch(() => undefined);
    return next;
  }

  async function cycleUnderLock(holder: string, force: boolean): Promise<CycleReport> {
    await touchWatcherLock(lock, holder);
    const report = await options.cycle({ force });
    const next = scheduled?.nextRun();
    await touchWatcherLock(lock, holder, { last_cycle: summarize(report), ...(next ? { next_cycle: next.toISOString() } : {}) });
    return report;
  }

  async function tick(): Promise<void> {
    const holder = token;
    if (!holder) return;
    try {
      await serialize(() => cycleUnderLock(holder, false));
    } catch (error) {
      options.log("warn", "PR watcher cycle failed", { error: formatError(error) });
      if (error instanceof Error && "code" in error && error.code === "watcher_lost") await stop();
    }
  }

  async function stop(): Promise<void> {
    scheduled?.stop();
    scheduled = undefined;
    const holder = token;
    token = undefined;
    mode = undefined;
    if (holder) await releaseWatcherLock(lock, holder);
  }

  return {
    get running() {
      return token !== undefined;
    },
    get mode() {
      return mode;
    },
    async start(startMode) {
      if (token) return {};
      const holder = randomUUID();
      const result = await acquireWatcherLock(lock, { pid: options.pid, token: holder, mode: startMode, intervalMs: options.intervalMs });
      token = holder;
      mode = startMode;
      scheduled = options.clock.schedule(options.intervalMs, tick);
      options.log("info", `PR watcher started (${startMode}, every ${options.intervalMs} ms)`);
      void tick();
      return result;
    },
    stop,
    async runOnce() {
      if (token) {
        const holder = token;
        return serialize(() => cycleUnderLock(holder, true));
      }
      const holder = randomUUID();
      await acquireWatcherLock(lock, { pid: options.pid, token: holder, mode: "once", intervalMs: options.intervalMs });
      try {
        return await serialize(() => cycleUnderLock(holder, true));
      } finally {
        await releaseWatcherLock(lock, holder);
      }
    },
    nextRun: () => scheduled?.nextRun(),
  };
}
