import path from "node:path";
import { OttoError, holdLock, type LockRetries } from "../core/index.ts";

/*
 * One run per spec and working tree at a time: a second `execute` would reset the first one's
 * `running` tasks to pending and run them twice. The lock lives in the git directory (the working
 * tree stays clean). proper-lockfile refreshes it while the run lives; a run killed with SIGKILL
 * leaves it behind, and it counts as stale STALE_MS later, so a re-run waits at most that long.
 * https://github.com/moxystudio/node-proper-lockfile#lockfile-options
 */
const STALE_MS = 5_000;
const RETRIES = { retries: 7, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 };

export type Release = () => Promise<void>;

export async function lockRun(lockDir: string, slug: string, retries: LockRetries = RETRIES): Promise<Release> {
  try {
    return await holdLock(path.join(lockDir, `otto-execute-${slug}`), retries, STALE_MS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") {
      throw new OttoError(
        "execute_running",
        `Another /otto-spec execute (or task run) of ${slug} is running in this working tree.`,
        "Wait for it to finish (or cancel it), then run the command again.",
      );
    }
    throw error;
  }
}
