import type { ScheduledTask } from "node-cron";

/*
 * The watcher's clock, injectable: tests pass a fake `schedule` and `now`, production uses
 * node-cron. Cron runs on wall-clock boundaries, so a poll_interval becomes the nearest cron
 * step at or below it that divides its unit evenly (45s → every 30 s).
 */

export interface Scheduled {
  stop(): void;
  /** When the next tick is due, if known. */
  nextRun(): Date | undefined;
}

export interface Clock {
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  /** Calls `tick` every `intervalMs` until stopped; a tick still running is not started again. */
  schedule: (intervalMs: number, tick: () => Promise<void>) => Scheduled;
  /** A plain repeating timer (the lock's heartbeat); returns its cancel. A timer when absent. */
  repeat?: (intervalMs: number, run: () => void) => () => void;
}

/** setInterval that does not keep the process alive (the watcher's host does that). */
export function timerRepeat(intervalMs: number, run: () => void): () => void {
  const timer = setInterval(run, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

const SIXTY_DIVISORS = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
const DAY_DIVISORS = [1, 2, 3, 4, 6, 8, 12];

const atMost = (divisors: number[], n: number): number => divisors.filter((d) => d <= n).at(-1) ?? 1;

/** An interval as poll_interval is written: "2m", "1h", "30s". */
export function formatInterval(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** A six-field node-cron expression for the interval, and the interval it really runs at. */
export function cronFor(intervalMs: number): { expression: string; everyMs: number } {
  const seconds = Math.max(1, Math.round(intervalMs / 1000));
  if (seconds < 60) {
    const step = atMost(SIXTY_DIVISORS, seconds);
    return { expression: `*/${step} * * * * *`, everyMs: step * 1000 };
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) {
    const step = atMost(SIXTY_DIVISORS, minutes);
    return { expression: `0 */${step} * * * *`, everyMs: step * 60_000 };
  }
  const hours = Math.round(minutes / 60);
  if (hours < 24) {
    const step = atMost(DAY_DIVISORS, hours);
    return { expression: `0 0 */${step} * * *`, everyMs: step * 3_600_000 };
  }
  return { expression: "0 0 0 * * *", everyMs: 86_400_000 };
}

export const systemClock: Clock = {
  now: () => new Date(),
  repeat: timerRepeat,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  schedule(intervalMs, tick) {
    let task: ScheduledTask | undefined;
    let fallback: ReturnType<typeof setInterval> | undefined;
    let stopped = false;
    // node-cron is loaded when a watcher starts, not when the plugin loads.
    const ready = import("node-cron").then(({ default: cron }) => {
      if (stopped) return;
      task = cron.schedule(
        cronFor(intervalMs).expression,
        async () => {
          await tick();
        },
        { noOverlap: true, name: "otto-pr-watch" },
      );
    });
    // Should node-cron fail to load, a plain timer keeps the watcher going.
    ready.catch(() => {
      if (!stopped) fallback = setInterval(() => void tick(), intervalMs);
    });
    return {
      stop: () => {
        stopped = true;
        clearInterval(fallback);
        ready.then(
          () => task?.destroy(),
          () => undefined,
        );
      },
      nextRun: () => task?.getNextRun() ?? undefined,
    };
  },
};
