import { formatError } from "../../core/index.ts";

/*
 * The watcher's running fixes. A fix takes minutes to tens of minutes; run inside the cycle it
 * would hold up the polling (and the green comments and replies) of every other PR. So the cycle
 * hands a failure over and goes on: the fix runs beside the cycles, at most one per PR, each with
 * an AbortSignal that `watch stop` fires and then waits on, so no session or check outlives the
 * watcher that started it.
 */

export interface BackgroundFixes {
  /** Starts `run` for the PR `key` unless a fix of it is running; false (and nothing run) if one is. */
  start(key: string, run: (signal: AbortSignal) => Promise<void>): boolean;
  running(key: string): boolean;
  /** Keys of the PRs being fixed. */
  keys(): string[];
  /** Resolves when no fix runs (fixes started meanwhile included). */
  idle(): Promise<void>;
  /** Aborts every running fix, refuses new ones until `reopen`, and waits for each to wind down. */
  cancel(reason: string): Promise<void>;
  /** Accepts fixes again (the watcher started again). */
  reopen(): void;
}

export function createBackgroundFixes(
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void,
): BackgroundFixes {
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  // After a stop, a cycle still finishing must not start a fix nobody will cancel.
  let closed = false;
  const idle = async (): Promise<void> => {
    while (running.size > 0) await Promise.all([...running.values()].map((r) => r.done));
  };

  return {
    start(key, run) {
      if (closed || running.has(key)) return false;
      const controller = new AbortController();
      // The fix's own errors are recorded by the fix flow; here they are only logged.
      const done = Promise.resolve()
        .then(() => run(controller.signal))
        .catch((error: unknown) => {
          log(controller.signal.aborted ? "info" : "warn", `fix flow for ${key} ${controller.signal.aborted ? "cancelled" : "failed"}`, {
            error: formatError(error),
          });
        })
        .finally(() => {
          running.delete(key);
        });
      running.set(key, { controller, done });
      return true;
    },
    running: (key) => running.has(key),
    keys: () => [...running.keys()],
    idle,
    async cancel(reason) {
      closed = true;
      for (const [key, r] of running) {
        log("info", `cancelling the fix of ${key}: ${reason}`);
        r.controller.abort(new Error(reason));
      }
      await idle();
    },
    reopen() {
      closed = false;
    },
  };
}

/**
 * The cycle's onFailure that hands the failure to a fix running beside the cycle and returns at
 * once. A PR whose fix still runs keeps being polled but is not handed a second fix.
 */
export function handOverFix<F extends { doc: { key: string } }>(
  fixes: BackgroundFixes,
  run: (failure: F, signal: AbortSignal) => Promise<void>,
  log: (level: "info" | "warn", message: string) => void,
): (failure: F) => Promise<void> {
  return async (failure) => {
    if (!fixes.start(failure.doc.key, (signal) => run(failure, signal)))
      log("info", `fix of ${failure.doc.key} not started: one is running, or the watcher is stopping`);
  };
}
