import { OttoError, holdLock, processAlive } from "../core/index.ts";
import type { BuildState } from "./state.ts";

/*
 * One loop per target at a time, across the TUI sessions of one OpenCode server and across
 * processes: a check of the state file alone is read-then-write, and two loops prompting two
 * builders on one tasks.md would undo each other's work. The lock is held for the loop's life;
 * proper-lockfile refreshes its mtime, so the lock of a killed process counts as stale STALE_MS
 * later (as in src/execute/run-lock.ts).
 * https://github.com/moxystudio/node-proper-lockfile#lockfile-options
 */
const STALE_MS = 5_000;
/** When the holder's process is dead: wait for its lock to go stale (a little over STALE_MS). */
const TAKEOVER = { retries: 7, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 };

export type Release = () => Promise<void>;

export interface LockOptions {
  /** The target's state, read when the lock is taken: who holds it. */
  holder: () => Promise<BuildState | undefined>;
  /** `--spec demo` or `--openspec add-auth`, for the refusal's fix line. */
  flag: string;
}

/** Takes the target's lock (`.otto/build/<key>.lock`), or refuses when a live loop holds it. */
export async function lockTarget(file: string, name: string, options: LockOptions): Promise<Release> {
  try {
    return await holdLock(file, 0, STALE_MS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    const holder = await options.holder();
    // The state names a dead process: its lock stops being refreshed, take it over once stale.
    if (holder?.pid !== undefined && !processAlive(holder.pid)) {
      try {
        return await holdLock(file, TAKEOVER, STALE_MS);
      } catch (retry) {
        if ((retry as NodeJS.ErrnoException).code !== "ELOCKED") throw retry;
      }
    }
    throw refusal(name, holder, options.flag);
  }
}

function refusal(name: string, holder: BuildState | undefined, flag: string): OttoError {
  const who = [
    holder?.pid !== undefined ? `OpenCode process ${holder.pid}${holder.pid === process.pid ? ", this one" : ""}` : undefined,
    holder?.sessionID ? `builder session ${holder.sessionID}` : undefined,
    holder ? `turn ${holder.iteration}/${holder.maxIterations}` : undefined,
  ].filter((s) => s !== undefined);
  return new OttoError(
    "build_running",
    `A build loop for '${name}' is already running${who.length ? ` (${who.join(", ")})` : ""}; a second one would work the same tasks.`,
    `Stop it with /otto-build stop ${flag} (from any session), or watch it with /otto-build status.`,
  );
}
