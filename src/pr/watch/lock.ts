import fs from "node:fs/promises";
import { UsageRecord } from "../../cost/index.ts";
import os from "node:os";
import { z } from "zod";
import { OttoError, withFileLock, writeFileAtomic } from "../../core/index.ts";

/*
 * One watcher at a time across every process of the user: `$XDG_DATA_HOME/otto/watcher.json`
 * names the holder (PID, host, a token unique to the watcher) and its heartbeat, and keeps the
 * last cycle's summary for `watch status`. Every read-modify-write holds the file's lock, so two
 * processes never both take it. A record whose process is dead, or whose heartbeat is older than
 * the stale limit, is taken over.
 */

export const CycleSummary = z.object({
  started: z.string(),
  finished: z.string(),
  results: z.array(
    z.object({
      key: z.string(),
      pr: z.string().optional(),
      outcome: z.string(),
      status: z.string(),
      summary: z.string(),
      error: z.string().optional(),
      /** What the PR's model work cost in the cycle (ledger entries since it started). */
      usage: UsageRecord.optional(),
    }),
  ),
});
export type CycleSummary = z.infer<typeof CycleSummary>;

export const WatchMode = z.enum(["foreground", "detached", "service", "once"]);
export type WatchMode = z.infer<typeof WatchMode>;

export const WatcherRecord = z.object({
  pid: z.number().int(),
  host: z.string(),
  token: z.string(),
  mode: WatchMode,
  started: z.string(),
  heartbeat: z.string(),
  interval_ms: z.number(),
  next_cycle: z.string().optional(),
  last_cycle: CycleSummary.optional(),
  /** Set when the holder let go; the record stays for `status`. */
  stopped: z.string().optional(),
});
export type WatcherRecord = z.infer<typeof WatcherRecord>;

export interface LockDeps {
  file: string;
  now: () => Date;
  /** process.kill(pid, 0) in production. */
  isAlive: (pid: number) => boolean;
  hostname?: string;
}

/** A heartbeat older than three intervals (at least two minutes) means the holder is stuck or gone. */
export function staleAfterMs(intervalMs: number): number {
  return Math.max(3 * intervalMs, 120_000);
}

/**
 * How often the holder refreshes its heartbeat, whatever its cycles do: well inside the stale
 * limit, so a fix that runs for half an hour inside one cycle never looks stale.
 */
export function heartbeatMs(intervalMs: number): number {
  return Math.min(30_000, Math.max(1_000, Math.floor(intervalMs / 2)));
}

export async function readWatcherRecord(file: string): Promise<WatcherRecord | undefined> {
  try {
    return WatcherRecord.parse(JSON.parse(await fs.readFile(file, "utf8")));
  } catch {
    // Missing or unreadable: nobody holds it.
    return undefined;
  }
}

/** Whether the record names a live holder, as seen from this host. */
export function holderAlive(record: WatcherRecord | undefined, deps: Pick<LockDeps, "now" | "isAlive" | "hostname">): boolean {
  if (!record || record.stopped) return false;
  const fresh = deps.now().getTime() - Date.parse(record.heartbeat) < staleAfterMs(record.interval_ms);
  // On another host (a shared home) the PID means nothing; only the heartbeat counts.
  const sameHost = record.host === (deps.hostname ?? os.hostname());
  return fresh && (!sameHost || deps.isAlive(record.pid));
}

export interface Holder {
  pid: number;
  token: string;
  mode: WatchMode;
  intervalMs: number;
}

/** Takes the lock or throws `watcher_running`; returns the PID of a stale holder it replaced. */
export async function acquireWatcherLock(deps: LockDeps, holder: Holder): Promise<{ replaced?: number }> {
  return withFileLock(deps.file, async () => {
    const current = await readWatcherRecord(deps.file);
    if (current && current.token !== holder.token && holderAlive(current, deps)) {
      throw new OttoError(
        "watcher_running",
        `A PR watcher is already running (pid ${current.pid}, ${current.mode}, since ${current.started}).`,
        "See it with /otto-pr watch status; stop it with /otto-pr watch stop.",
      );
    }
    const now = deps.now().toISOString();
    const record: WatcherRecord = {
      pid: holder.pid,
      host: deps.hostname ?? os.hostname(),
      token: holder.token,
      mode: holder.mode,
      started: now,
      heartbeat: now,
      interval_ms: holder.intervalMs,
      ...(current?.last_cycle ? { last_cycle: current.last_cycle } : {}),
    };
    await writeFileAtomic(deps.file, `${JSON.stringify(record, null, 2)}\n`, 0o600);
    return current && !current.stopped && current.token !== holder.token ? { replaced: current.pid } : {};
  });
}

/** Updates the holder's record (heartbeat always); throws `watcher_lost` when another watcher took over. */
export async function touchWatcherLock(
  deps: LockDeps,
  token: string,
  patch: Partial<Pick<WatcherRecord, "next_cycle" | "last_cycle" | "stopped">> = {},
): Promise<void> {
  await withFileLock(deps.file, async () => {
    const current = await readWatcherRecord(deps.file);
    if (!current || current.token !== token) {
      throw new OttoError("watcher_lost", "Another PR watcher took over the lock (this one looked stale).", "Run /otto-pr watch status.");
    }
    const record: WatcherRecord = { ...current, ...patch, heartbeat: deps.now().toISOString() };
    await writeFileAtomic(deps.file, `${JSON.stringify(record, null, 2)}\n`, 0o600);
  });
}

/** Lets go of the lock if this token holds it; keeps the record (last cycle) for `status`. */
export async function releaseWatcherLock(deps: LockDeps, token: string): Promise<void> {
  await touchWatcherLock(deps, token, { stopped: deps.now().toISOString() }).catch((error: unknown) => {
    if (!(error instanceof OttoError && error.code === "watcher_lost")) throw error;
  });
}

/** Marks the record stopped on behalf of a holder that was ended from outside (`watch stop`). */
export async function markStopped(deps: LockDeps, pid: number): Promise<void> {
  await withFileLock(deps.file, async () => {
    const current = await readWatcherRecord(deps.file);
    if (!current || current.pid !== pid || current.stopped) return;
    await writeFileAtomic(deps.file, `${JSON.stringify({ ...current, stopped: deps.now().toISOString() }, null, 2)}\n`, 0o600);
  });
}
