import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { withFileLock, writeFileAtomic, xdgPaths, type Env } from "../../core/index.ts";

/*
 * What learning remembers per repository, in otto's data folder (never in the repository): the
 * ids of the signals it learned from, so a signal is sent to a model once, and when it last ran,
 * so the watcher learns at most once a day. Written atomically under a lock.
 */

/** Ids kept at most: the newest; an older signal is past any --since by then. */
const MAX_IDS = 5000;

export const LearnState = z.object({
  consumed: z.array(z.string()).default([]),
  /** When learning last read the repository's PRs (ISO). */
  last_run: z.string().optional(),
});
export type LearnState = z.infer<typeof LearnState>;

/** `$XDG_DATA_HOME/otto/rules/<repo>.json`, the repository as its forge names it (`github-octo-app`). */
export function learnStateFile(env: Env, provider: string, repo: string): string {
  const key = `${provider}-${repo}`.toLowerCase().replace(/[^a-z0-9._-]+/g, "-");
  return path.join(xdgPaths(env).ottoDataDir, "rules", `${key}.json`);
}

/** The state; a missing or unreadable file is a fresh start (learning then reads every signal again, once). */
export async function readLearnState(file: string): Promise<LearnState> {
  try {
    return LearnState.parse(JSON.parse(await fs.readFile(file, "utf8")));
  } catch {
    return { consumed: [] };
  }
}

/** Adds `ids` to the consumed ones and stamps the run. */
export async function recordLearnRun(file: string, ids: readonly string[], at: Date): Promise<void> {
  await withFileLock(file, async () => {
    const current = await readLearnState(file);
    const consumed = [...new Set([...current.consumed, ...ids])].slice(-MAX_IDS);
    await writeFileAtomic(file, `${JSON.stringify({ consumed, last_run: at.toISOString() }, null, 2)}\n`, 0o600);
  });
}
