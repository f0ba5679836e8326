import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OttoError, formatZodIssues, readTextIfExists, withFileLock, writeFileAtomic } from "../../core/index.ts";
import { ProviderName } from "../types.ts";

/*
 * The flake ledger of one repository, kept with otto's PR data (`prs/flakes/<provider>-<repo>.json`),
 * written atomically under a lock like the PR documents: failure fingerprint → every time it was
 * judged a flake (PR, head, check, when, how), the failures the default branch already had
 * (inherited, "main is red"), and what otto's fixes cost in this repository (the median a flake
 * or an inherited failure saved). Pure helpers rank and count; read/update do the I/O.
 */

const Timestamp = z.preprocess((v) => (v instanceof Date ? v.toISOString() : v), z.string());

/** How a failure was judged a flake: the forge's re-run passed, it passed in otto's sandbox, or the ledger knew it. */
export const FlakeVerdict = z.enum(["rerun", "local", "known"]);
export type FlakeVerdict = z.infer<typeof FlakeVerdict>;

export const FlakeOccurrence = z.object({
  /** The PR document's key. */
  pr: z.string(),
  number: z.number().int().positive(),
  url: z.string(),
  /** The failed run's page, when the forge gave one. */
  run_url: z.string().optional(),
  head: z.string(),
  check: z.string(),
  at: Timestamp,
  verdict: FlakeVerdict,
});
export type FlakeOccurrence = z.infer<typeof FlakeOccurrence>;

export const FlakeEntry = z.object({
  /** The normalised failure lines the fingerprint was made of. */
  lines: z.array(z.string()).default([]),
  occurrences: z.array(FlakeOccurrence).default([]),
  /** When a person was told this failure is flaky (once per pr.flakes.window). */
  notified: Timestamp.optional(),
  /** The issue or work item otto opened for it (pr.flakes.open_issue): never a second one. */
  issue: z.string().optional(),
});
export type FlakeEntry = z.infer<typeof FlakeEntry>;

/** A failure the default branch has too: a PR that fails the same way inherited it. */
export const RedMain = z.object({
  check: z.string(),
  /** The default branch's commit otto first saw failing this way. */
  since: z.string(),
  first_seen: Timestamp,
  last_seen: Timestamp,
  lines: z.array(z.string()).default([]),
  /** The PRs told (one notification per fingerprint, the document of each PR). */
  prs: z.array(z.string()).default([]),
  /** Each PR head judged to have inherited it: one verdict each, counted by /otto-cost's estimate of what verdicts saved. */
  heads: z.array(z.object({ pr: z.string(), head: z.string(), at: Timestamp })).default([]),
  notified: z.boolean().default(false),
});
export type RedMain = z.infer<typeof RedMain>;

export const FixCost = z.object({ at: Timestamp, usd: z.number().nonnegative(), tokens: z.number().nonnegative() });
export type FixCost = z.infer<typeof FixCost>;

export const FlakeLedger = z.object({
  version: z.literal(1).default(1),
  /** The repository, as its PRs' documents name it (`owner/repo`, `org/project/repo`). */
  provider: ProviderName.optional(),
  repo: z.string().optional(),
  flakes: z.record(z.string(), FlakeEntry).default({}),
  red_main: z.record(z.string(), RedMain).default({}),
  /** The newest fix runs' cost in this repository (analysis and attempts), for what a verdict saved. */
  fix_costs: z.array(FixCost).default([]),
});
export type FlakeLedger = z.infer<typeof FlakeLedger>;

export const emptyLedger = (): FlakeLedger => FlakeLedger.parse({});

/** Occurrences kept per fingerprint, and fix costs kept per repository: the newest. */
const MAX_OCCURRENCES = 100;
const MAX_FIX_COSTS = 50;

/** `<store dir>/flakes/github-octo-app.json` */
export function flakeLedgerFile(storeDir: string, provider: ProviderName, repo: string): string {
  return path.join(storeDir, "flakes", `${`${provider}-${repo}`.toLowerCase().replace(/[^a-z0-9._-]+/g, "_")}.json`);
}

export async function readFlakeLedger(file: string): Promise<FlakeLedger> {
  const text = await readTextIfExists(file);
  if (text === undefined) return emptyLedger();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new OttoError("flake_ledger", `The flake ledger ${file} is not JSON: ${(error as Error).message}.`, `Fix or delete ${file}.`);
  }
  const parsed = FlakeLedger.safeParse(json);
  if (!parsed.success)
    throw new OttoError(
      "flake_ledger",
      `The flake ledger ${file}: ${formatZodIssues(parsed.error.issues, { inline: true })}.`,
      `Fix or delete ${file}.`,
    );
  return parsed.data;
}

/** Read-modify-write under the ledger's lock; `change` returning undefined writes nothing. */
export function updateFlakeLedger(
  file: string,
  change: (ledger: FlakeLedger) => FlakeLedger | undefined,
  repo?: { provider: ProviderName; repo: string },
): Promise<FlakeLedger> {
  return withFileLock(file, async () => {
    const current = await readFlakeLedger(file);
    const changed = change(current);
    const next = changed && repo ? { ...changed, provider: repo.provider, repo: repo.repo } : changed;
    if (!next) return current;
    await writeFileAtomic(file, `${JSON.stringify(FlakeLedger.parse(next), null, 2)}\n`, 0o600);
    return next;
  });
}

/** Pure: the ledger with one more occurrence of a flake (the same PR, head and check counts once). */
export function addFlake(ledger: FlakeLedger, fingerprint: string, lines: readonly string[], occurrence: FlakeOccurrence): FlakeLedger {
  const entry = ledger.flakes[fingerprint] ?? { lines: [...lines], occurrences: [] };
  const same = entry.occurrences.some((o) => o.pr === occurrence.pr && o.head === occurrence.head && o.check === occurrence.check);
  const occurrences = same ? entry.occurrences : [...entry.occurrences, occurrence].slice(-MAX_OCCURRENCES);
  return {
    ...ledger,
    flakes: { ...ledger.flakes, [fingerprint]: { ...entry, lines: entry.lines.length ? entry.lines : [...lines], occurrences } },
  };
}

/** Pure: occurrences within `windowMs` before `now`. */
export function recentOccurrences(entry: FlakeEntry, now: Date, windowMs: number): FlakeOccurrence[] {
  return entry.occurrences.filter((o) => now.getTime() - Date.parse(o.at) <= windowMs);
}

/** Pure: whether a person should hear of this flake now: `after` occurrences in the window, and not told within it. */
export function dueForNotice(entry: FlakeEntry, now: Date, windowMs: number, after: number): boolean {
  if (recentOccurrences(entry, now, windowMs).length < after) return false;
  return entry.notified === undefined || now.getTime() - Date.parse(entry.notified) > windowMs;
}

/** Pure: flakes, most frequent first (then the most recent). */
export function rankFlakes(ledger: FlakeLedger): Array<{ fingerprint: string; entry: FlakeEntry }> {
  const last = (e: FlakeEntry): string => e.occurrences.at(-1)?.at ?? "";
  return Object.entries(ledger.flakes)
    .map(([fingerprint, entry]) => ({ fingerprint, entry }))
    .sort((a, b) => b.entry.occurrences.length - a.entry.occurrences.length || last(b.entry).localeCompare(last(a.entry)));
}

/** Pure: the ledger with one more fix run's cost. */
export function addFixCost(ledger: FlakeLedger, cost: FixCost): FlakeLedger {
  return { ...ledger, fix_costs: [...ledger.fix_costs, cost].slice(-MAX_FIX_COSTS) };
}

/** Pure: the median fix run in this repository (usd and tokens), or undefined before the first. */
export function medianFixCost(ledger: FlakeLedger): { usd: number; tokens: number; runs: number } | undefined {
  const runs = ledger.fix_costs.length;
  if (runs === 0) return undefined;
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  return { usd: median(ledger.fix_costs.map((c) => c.usd)), tokens: median(ledger.fix_costs.map((c) => c.tokens)), runs };
}

/** What flake and inherited verdicts saved in one repository since a time: an estimate, the repository's median fix per verdict. */
export interface VerdictSavings {
  flaky: number;
  inherited: number;
  /** The median fix run (undefined before the first fix in the repository: the verdicts are then not priced). */
  median?: { usd: number; tokens: number; runs: number } | undefined;
}

/**
 * Pure: the verdicts a ledger holds at or after `since`. A flaky verdict is one PR head judged
 * flaky (its checks' occurrences count once), an inherited one a PR head that failed as the
 * default branch did.
 */
export function verdictsSince(ledger: FlakeLedger, since: Date): VerdictSavings {
  const from = since.getTime();
  const flaky = new Set<string>();
  for (const entry of Object.values(ledger.flakes))
    for (const o of entry.occurrences) if (Date.parse(o.at) >= from) flaky.add(`${o.pr} ${o.head}`);
  const inherited = new Set<string>();
  for (const red of Object.values(ledger.red_main))
    for (const h of red.heads) if (Date.parse(h.at) >= from) inherited.add(`${h.pr} ${h.head}`);
  return { flaky: flaky.size, inherited: inherited.size, median: medianFixCost(ledger) };
}

/** Every repository's ledger under the store (`<dir>/flakes/*.json`); unreadable ones are reported, not thrown. */
export async function listFlakeLedgers(
  storeDir: string,
): Promise<{ ledgers: Array<{ file: string; ledger: FlakeLedger }>; broken: string[] }> {
  const dir = path.join(storeDir, "flakes");
  let names: string[] = [];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(".json")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const ledgers: Array<{ file: string; ledger: FlakeLedger }> = [];
  const broken: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      ledgers.push({ file, ledger: await readFlakeLedger(file) });
    } catch (error) {
      broken.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { ledgers, broken };
}
