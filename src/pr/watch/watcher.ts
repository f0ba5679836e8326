import { randomUUID } from "node:crypto";
import { formatError } from "../../core/index.ts";
import type { CycleReport } from "./cycle.ts";
import {
  acquireWatcherLock,
  heartbeatMs,
  releaseWatcherLock,
  touchWatcherLock,
  type CycleSummary,
  type LockDeps,
  type WatchMode,
} from "./lock.ts";
import type { BackgroundFixes } from "./fixes.ts";
import { timerRepeat, type Clock, type Scheduled } from "./schedule.ts";

export interface WatcherOptions {
  lock: Omit<LockDeps, "now">;
  clock: Clock;
  pid: number;
  intervalMs: number;
  /** One cycle over every tracked PR (config is read again each time). */
  cycle(options: { force: boolean }): Promise<CycleReport>;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
  /** Work the cycles started that runs beside them (the fixes): cancelled by stop, awaited by a lone `once`. */
  background?: Pick<BackgroundFixes, "idle" | "cancel" | "reopen">;
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
    results: report.results.map((r) => ({
      key: r.key,
      ...(r.pr ? { pr: r.pr } : {}),
      outcome: r.outcome,
      status: r.status,
      summary: r.summary,
      ...(r.error ? { error: r.error } : {}),
      ...(r.usage ? { usage: r.usage } : {}),
    })),
  };
}

const lostLock = (error: unknown): boolean => error instanceof Error && "code" in error && error.code === "watcher_lost";

/**
 * The PR watcher of one process: a schedule, the cross-process lock, and cycles that never
 * overlap. The lock's heartbeat runs on a timer of its own while the lock is held, because one
 * cycle may run a fix for tens of minutes; a tick that comes while a cycle still runs is skipped,
 * not queued, so a long cycle is not followed by a burst of back-to-back ones.
 */
export function createWatcher(options: WatcherOptions): Watcher {
  const lock: LockDeps = { ...options.lock, now: () => options.clock.now() };
  const repeat = options.clock.repeat ?? timerRepeat;
  let token: string | undefined;
  let mode: WatchMode | undefined;
  let scheduled: Scheduled | undefined;
  let stopBeat: (() => void) | undefined;
  // Cycles run one after another, whether scheduled or asked for; `active` counts queued and running ones.
  let chain: Promise<unknown> = Promise.resolve();
  let active = 0;
  let skipLogged = false;

  function serialize<T>(run: () => Promise<T>): Promise<T> {
    active++;
    const counted = async (): Promise<T> => {
      try {
        return await run();
      } finally {
        active--;
        if (active === 0) skipLogged = false;
      }
    };
    const next = chain.then(counted, counted);
    chain = next.catch(() => undefined);
    return next;
  }

  /** Refreshes the holder's heartbeat every few seconds until cancelled; `onLost` when another watcher took over. */
  function heartbeat(holder: string, onLost: () => void): () => void {
    let touching = false;
    let warned = false;
    return repeat(heartbeatMs(options.intervalMs), () => {
      // A slow disk must not pile up touches.
      if (touching) return;
      touching = true;
      touchWatcherLock(lock, holder)
        .then(
          () => {
            warned = false;
          },
          (error: unknown) => {
            if (lostLock(error)) {
              options.log("warn", "PR watcher lost its lock to another watcher; stopping", { error: formatError(error) });
              onLost();
            } else if (!warned) {
              warned = true;
              options.log("warn", "PR watcher could not refresh its heartbeat", { error: formatError(error) });
            }
          },
        )
        .finally(() => {
          touching = false;
        });
    });
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
    if (active > 0) {
      if (!skipLogged) {
        skipLogged = true;
        options.log("info", "PR watcher: the previous cycle is still running; skipping ticks until it ends");
      }
      return;
    }
    try {
      await serialize(() => cycleUnderLock(holder, false));
    } catch (error) {
      options.log("warn", "PR watcher cycle failed", { error: formatError(error) });
      if (lostLock(error) && token === holder) await stop({ lost: true });
    }
  }

  let stopping: Promise<void> | undefined;

  /**
   * No more ticks; the cycle under way ends (so none hands a failure over after the cancel and
   * leaves it unfixed); then the running fixes are cancelled and waited for while the lock is still
   * held (its heartbeat goes on), so no other watcher starts on a PR whose fix is winding down.
   */
  function stop(how: { lost?: boolean } = {}): Promise<void> {
    stopping ??= (async () => {
      scheduled?.stop();
      scheduled = undefined;
      const holder = token;
      try {
        // A watcher that lost its lock stops at once: the new holder polls from now on.
        if (!how.lost) await chain;
        await options.background?.cancel("the PR watcher is stopping");
      } finally {
        stopBeat?.();
        stopBeat = undefined;
        token = undefined;
        mode = undefined;
        stopping = undefined;
        if (holder) await releaseWatcherLock(lock, holder);
      }
    })();
    return stopping;
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
      if (stopping) await stopping;
      const holder = randomUUID();
      const result = await acquireWatcherLock(lock, { pid: options.pid, token: holder, mode: startMode, intervalMs: options.intervalMs });
      token = holder;
      mode = startMode;
      options.background?.reopen();
      stopBeat = heartbeat(holder, () => {
        if (token === holder) void stop({ lost: true });
      });
      scheduled = options.clock.schedule(options.intervalMs, tick);
      options.log("info", `PR watcher started (${startMode}, every ${options.intervalMs} ms)`);
      void tick();
      return result;
    },
    stop: () => stop(),
    async runOnce() {
      if (token) {
        const holder = token;
        return serialize(() => cycleUnderLock(holder, true));
      }
      const holder = randomUUID();
      await acquireWatcherLock(lock, { pid: options.pid, token: holder, mode: "once", intervalMs: options.intervalMs });
      // A single cycle can run a long fix too: keep its lock fresh the same way.
      const cancel = heartbeat(holder, () => undefined);
      options.background?.reopen();
      try {
        const report = await serialize(() => cycleUnderLock(holder, true));
        // Nothing keeps running after a lone `once` (a headless run exits): its fixes finish inside it.
        await options.background?.idle();
        return report;
      } finally {
        cancel();
        await releaseWatcherLock(lock, holder);
      }
    },
    nextRun: () => scheduled?.nextRun(),
  };
}
