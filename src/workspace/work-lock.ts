import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import { z } from "zod";
import { OttoError, realTarget, writeFileAtomic, xdgPaths, type Env } from "../core/index.ts";

/*
 * One job at a time per working tree, across processes: the fix flow, the comment flow and the
 * review loop all edit, commit and push in a PR's tree, and two of them at once would commit each
 * other's half-done changes. The lock is `$XDG_DATA_HOME/otto/locks/<hash of the tree's realpath>.lock`
 * (a proper-lockfile directory, like src/core/files.ts), so every process of the user sees the
 * same one whatever path it reached the tree by. The holder refreshes its mtime while it runs; a
 * crashed holder stops doing so and its lock goes stale, so it blocks nobody for long. Unlike the
 * file locks, a busy tree is not waited for: jobs last minutes, so the caller decides (next cycle,
 * or refuse). Who holds it is in a `<hash>.json` beside the lock, for the caller's message.
 * https://github.com/moxystudio/node-proper-lockfile#lockfile-options
 */

/** A holder that stopped refreshing its lock this long ago is gone (crashed or frozen). */
export const WORK_LOCK_STALE_MS = 60_000;

export const WorkLockHolder = z.object({
  /** What holds the tree, for people: "the fix flow of github-o-r-1". */
  owner: z.string(),
  pid: z.number().int(),
  host: z.string(),
  since: z.string(),
  dir: z.string(),
  token: z.string(),
});
export type WorkLockHolder = z.infer<typeof WorkLockHolder>;

export type WorkLockResult<T> = { busy: false; value: T } | { busy: true; holder: WorkLockHolder | undefined };

export interface WorkLockOptions {
  /** Where XDG_DATA_HOME comes from (the plugin's env). */
  env?: Env;
  /** Overrides the stale limit (tests; at least 2 s, proper-lockfile's floor). */
  staleMs?: number;
  now?: () => Date;
}

/** The lock file (without `.lock`) and holder file of a working tree. */
export async function workLockPaths(dir: string, env: Env = process.env): Promise<{ file: string; holder: string; tree: string }> {
  const tree = await realTarget(dir);
  const hash = createHash("sha256").update(tree).digest("hex").slice(0, 24);
  const base = path.join(xdgPaths(env).ottoDataDir, "locks", hash);
  return { file: base, holder: `${base}.json`, tree };
}

async function readHolder(file: string): Promise<WorkLockHolder | undefined> {
  try {
    return WorkLockHolder.parse(JSON.parse(await fs.readFile(file, "utf8")));
  } catch {
    // Not written yet, or gone: the lock is held by someone otto cannot name.
    return undefined;
  }
}

/** The holder of a tree's lock when it is held (and not stale), without taking it. */
export async function workLockHolder(
  dir: string,
  options: WorkLockOptions = {},
): Promise<{ busy: boolean; holder: WorkLockHolder | undefined }> {
  const paths = await workLockPaths(dir, options.env);
  const locked = await lockfile.check(paths.file, { realpath: false, stale: options.staleMs ?? WORK_LOCK_STALE_MS }).catch(() => false);
  return { busy: locked, holder: locked ? await readHolder(paths.holder) : undefined };
}

/** "the fix flow of github-o-r-1 (pid 42 on box, since 2026-…)", or a stand-in when unknown. */
export function describeHolder(holder: WorkLockHolder | undefined): string {
  if (!holder) return "another otto job";
  return `${holder.owner} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
}

/**
 * Runs `fn` holding the working tree's lock; when another job (this process or another) holds
 * it, returns `{ busy: true, holder }` without running `fn`. Released however `fn` ends.
 */
export async function withWorkLock<T>(
  dir: string,
  owner: string,
  fn: () => Promise<T>,
  options: WorkLockOptions = {},
): Promise<WorkLockResult<T>> {
  const paths = await workLockPaths(dir, options.env);
  await fs.mkdir(path.dirname(paths.file), { recursive: true });
  let compromised = false;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(paths.file, {
      realpath: false,
      stale: options.staleMs ?? WORK_LOCK_STALE_MS,
      retries: 0,
      // The default throws from a timer, which would crash OpenCode. The job goes on; it simply
      // no longer owns the holder file.
      onCompromised: () => {
        compromised = true;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") return { busy: true, holder: await readHolder(paths.holder) };
    throw error;
  }
  const holder: WorkLockHolder = {
    owner,
    pid: process.pid,
    host: os.hostname(),
    since: (options.now?.() ?? new Date()).toISOString(),
    dir: paths.tree,
    token: randomUUID(),
  };
  try {
    await writeFileAtomic(paths.holder, `${JSON.stringify(holder, null, 2)}\n`, 0o600);
    return { busy: false, value: await fn() };
  } finally {
    if (!compromised) {
      // Only our own record goes: after a stale takeover it names the new holder.
      if ((await readHolder(paths.holder))?.token === holder.token) await fs.rm(paths.holder, { force: true });
      await release().catch(() => undefined);
    }
  }
}

/** The error of a job that refuses to wait for a busy tree (the review loop): who holds it, and what to do. */
export function workTreeBusy(dir: string, holder: WorkLockHolder | undefined, retry: string): OttoError {
  return new OttoError(
    "worktree_busy",
    `The PR's working tree ${dir} is busy: ${describeHolder(holder)} is editing, committing and pushing there.`,
    `Wait for that job to finish, then ${retry}. If no otto job runs there any more, its lock goes stale by itself within ${WORK_LOCK_STALE_MS / 1000} s.`,
  );
}
