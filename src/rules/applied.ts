import path from "node:path";
import { readTextIfExists, withFileLock, writeFileAtomic } from "../core/files.ts";
import { xdgPaths, type Env } from "../core/paths.ts";
import { z } from "zod";

/*
 * How often each rule reached a prompt: kept in otto's data folder, not in the committed rules
 * file (a count that changes with every run would make every run a change to review). Keyed by
 * the repository's root; the user's own rules under "user".
 */

const Counts = z.record(z.string(), z.record(z.string(), z.number().int().nonnegative()));
type Counts = z.infer<typeof Counts>;

export const USER_KEY = "user";

export function appliedPath(env: Env = process.env): string {
  return path.join(xdgPaths(env).ottoDataDir, "rules", "applied.json");
}

async function load(file: string): Promise<Counts> {
  const text = await readTextIfExists(file);
  if (text === undefined) return {};
  try {
    const parsed = Counts.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {}; // a broken counts file starts again from zero: counts are information, not state
  }
}

/** Counts one application of each rule: `root` the repository's rules, USER_KEY the user's. Never throws. */
export async function recordApplied(
  entries: ReadonlyArray<{ key: string; ids: readonly string[] }>,
  env: Env = process.env,
): Promise<void> {
  if (entries.every((entry) => entry.ids.length === 0)) return;
  const file = appliedPath(env);
  await withFileLock(file, async () => {
    const counts = await load(file);
    for (const { key, ids } of entries) {
      const row = (counts[key] ??= {});
      for (const id of ids) row[id] = (row[id] ?? 0) + 1;
    }
    await writeFileAtomic(file, `${JSON.stringify(counts, null, 2)}\n`, 0o600);
  }).catch(() => undefined);
}

/** The counts of one key (a repository root, or USER_KEY). */
export async function appliedCounts(key: string, env: Env = process.env): Promise<Record<string, number>> {
  return (await load(appliedPath(env)))[key] ?? {};
}
