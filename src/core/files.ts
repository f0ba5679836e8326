import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import lockfile from "proper-lockfile";
import { OttoError } from "./errors.ts";
import { assertOttoPathSafe } from "./otto-dir.ts";

/** True when `file` exists (a file, a folder, or a link to one). */
export async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/*
 * Atomic writes under a lock, shared by every file otto edits (otto.jsonc, spec files).
 * proper-lockfile takes a `<file>.lock` directory (mkdir is atomic on every platform), so the
 * lock works across processes (OpenCode, the otto server) and across calls in one process.
 * Retries: about 25 s or more in total (docs/decisions.md), longer than `stale`, so a lock left by
 * a crashed process is taken over.
 * https://github.com/moxystudio/node-proper-lockfile#lockfile-options
 */
const LOCK_OPTIONS = {
  // The file may not exist yet; we resolve symlinks ourselves (see realTarget).
  realpath: false,
  stale: 10_000,
  // Short, flat retries: an exponential backoff up to seconds let a writer that lost a few rounds
  // wait far longer than the others (the tail of the lock bench). About 30 s in all, like before.
  retries: { retries: 1200, factor: 1.1, minTimeout: 2, maxTimeout: 25, randomize: true },
};

/*
 * Writers of one process take turns per file before they ask for the cross-process lock, so they
 * never poll against each other: their wait is the queue in front of them, in order.
 */
const turns = new Map<string, Promise<void>>();

async function takeTurn(file: string): Promise<() => void> {
  const key = path.resolve(file);
  const previous = turns.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = previous.then(() => mine);
  turns.set(key, tail);
  await previous;
  return () => {
    done();
    if (turns.get(key) === tail) turns.delete(key);
  };
}

/**
 * The file a write must replace: the target of a symlink (dotfile managers link otto.jsonc, for instance),
 * so renaming over it does not turn the link into a plain file.
 */
/** The file's text, or undefined when it does not exist (a missing file is not an error). */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function realTarget(file: string): Promise<string> {
  // Resolved for a write: under .otto the link must not lead out of the repository.
  await assertOttoPathSafe(file);
  try {
    return await fs.realpath(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return path.resolve(file);
    throw error;
  }
}

/** How often `holdLock` tries again while another holder has the lock (proper-lockfile's retries). */
export type LockRetries = number | { retries: number; factor: number; minTimeout: number; maxTimeout: number };

/**
 * Takes the lock of `file` for a long job (a run, a loop) and returns its release. proper-lockfile
 * refreshes it while the process lives; a killed holder's lock counts as stale `staleMs` later.
 * Throws proper-lockfile's ELOCKED error when someone else holds it.
 * https://github.com/moxystudio/node-proper-lockfile#lockfile-options
 */
export async function holdLock(file: string, retries: LockRetries, staleMs = 5_000): Promise<() => Promise<void>> {
  await assertOttoPathSafe(file);
  await fs.mkdir(path.dirname(file), { recursive: true });
  let compromised = false;
  const release = await lockfile.lock(file, {
    realpath: false,
    stale: staleMs,
    retries,
    // The default throws from a timer, which would crash OpenCode; the job goes on without it.
    onCompromised: () => {
      compromised = true;
    },
  });
  return async () => {
    if (!compromised) await release().catch(() => undefined);
  };
}

/** Runs `fn` holding the lock of `file`; creates the file's directory first. */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  // The lock is a folder beside the file: under .otto it must not land outside the repository.
  await assertOttoPathSafe(file);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const turnDone = await takeTurn(file);
  try {
    let compromised: Error | undefined;
    const release = await lockfile.lock(file, {
      ...LOCK_OPTIONS,
      // The default throws from a timer, which would crash OpenCode; fail this write instead.
      onCompromised: (error: Error) => {
        compromised = error;
      },
    });
    try {
      const result = await fn();
      if (compromised) throw new OttoError("file_lock", `Lost the lock on ${file}: ${compromised.message}`, "Run the command again.");
      return result;
    } finally {
      if (!compromised) await release();
    }
  } finally {
    turnDone();
  }
}

/**
 * Writes via a temp file in the same directory and a rename, so readers never see half a file.
 * Under a repository's `.otto` folder, refuses a path that leaves it through a symlink (otto-dir.ts).
 */
export async function writeFileAtomic(file: string, text: string, mode: number): Promise<void> {
  await assertOttoPathSafe(file);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomUUID()}.tmp`);
  try {
    await fs.writeFile(temp, text, { mode });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}
