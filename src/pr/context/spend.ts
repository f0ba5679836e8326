import fs from "node:fs/promises";
import path from "node:path";
import { xdgPaths, type Env } from "../../core/index.ts";
import {
  addUsage,
  formatCost,
  formatUsd,
  ledgerFile,
  readLedger,
  ZERO_USAGE,
  type Budget,
  type LedgerEntry,
  type Usage,
} from "../../cost/index.ts";
import type { PrFrontmatter, PrSpend } from "../store/document.ts";

/*
 * What PR work costs (docs/cost.md, "PR work and the watcher's caps"): the label that ties a PR's
 * model calls together in the ledger, the spend kept in its document, and the watcher's daily
 * caps (limits.pr_usd_per_day per PR, limits.watcher_usd_per_day over all PRs), summed from the
 * ledger's entries of the current UTC day. Pure, apart from reading the ledger and the once-a-day
 * markers.
 */

/** Fix attempts and comments whose spend a document keeps (the totals keep everything). */
export const MAX_SPEND_ITEMS = 50;

/** The ledger's `labels.pr` of a PR: "<owner>/<repo>#<n>" (Azure DevOps: "<org>/<project>/<repo>#<n>"). */
export function prLabel(data: Pick<PrFrontmatter, "repo" | "id">): string {
  return `${data.repo}#${data.id}`;
}

/** "2026-11-26": the UTC day of `now`. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** When the caps of `now`'s day are lifted: the next 00:00 UTC. */
export function nextUtcDay(now: Date): Date {
  return new Date(startOfUtcDay(now).getTime() + 24 * 60 * 60 * 1000);
}

/**
 * Today's (UTC) spend in `entries`: of one PR (its label), or of every PR's work (any entry with a
 * `labels.pr`) when `pr` is undefined. Entries before the day started are left out.
 */
export function spentToday(entries: readonly LedgerEntry[], now: Date, pr?: string): Usage {
  const from = startOfUtcDay(now).toISOString();
  let out = ZERO_USAGE;
  for (const entry of entries) {
    if (entry.at < from || !entry.labels.pr) continue;
    if (pr !== undefined && entry.labels.pr !== pr) continue;
    out = addUsage(out, entry.usage);
  }
  return out;
}

export interface DailyCaps {
  /** limits.pr_usd_per_day */
  prUsd: number;
  /** limits.watcher_usd_per_day */
  watcherUsd: number;
}

export type CapCheck =
  /** Work may start; its account gets what is left of the tighter cap as its budget. */
  | { kind: "open"; budget: Budget; prSpent: Usage; watcherSpent: Usage; unpriced: boolean }
  /** The PR's cap (`pr`) or the watcher's (`watcher`) is reached: no model work today. */
  | { kind: "pr" | "watcher"; spent: Usage; cap: number; unpriced: boolean };

/** Whether the watcher may start model work for the PR `pr` now, and within what. */
export function checkCaps(entries: readonly LedgerEntry[], pr: string, caps: DailyCaps, now: Date): CapCheck {
  const prSpent = spentToday(entries, now, pr);
  const watcherSpent = spentToday(entries, now);
  const unpriced = watcherSpent.unpriced > 0;
  if (watcherSpent.usd >= caps.watcherUsd) return { kind: "watcher", spent: watcherSpent, cap: caps.watcherUsd, unpriced };
  if (prSpent.usd >= caps.prUsd) return { kind: "pr", spent: prSpent, cap: caps.prUsd, unpriced };
  const left = Math.min(caps.prUsd - prSpent.usd, caps.watcherUsd - watcherSpent.usd);
  const usd = Math.round(left * 1e6) / 1e6;
  return { kind: "open", budget: { usd, fix: resumeText(now) }, prSpent, watcherSpent, unpriced };
}

/** Which cap a budget stop reached: the spend before the work plus the work's own. */
export function capReached(
  check: Extract<CapCheck, { kind: "open" }>,
  work: Usage,
  caps: DailyCaps,
): Extract<CapCheck, { kind: "pr" | "watcher" }> {
  const watcher = addUsage(check.watcherSpent, work);
  if (watcher.usd >= caps.watcherUsd) return { kind: "watcher", spent: watcher, cap: caps.watcherUsd, unpriced: check.unpriced };
  return { kind: "pr", spent: addUsage(check.prSpent, work), cap: caps.prUsd, unpriced: check.unpriced };
}

function resumeText(now: Date): string {
  return `It resumes at ${nextUtcDay(now).toISOString().replace(".000Z", "Z")} (the next UTC day), or sooner if you raise the cap in otto.jsonc.`;
}

/** What a hold at a cap tells the PR's log and the person notified. */
export function capText(check: Extract<CapCheck, { kind: "pr" | "watcher" }>, pr: string, now: Date): { title: string; text: string } {
  const resume = nextUtcDay(now).toISOString().replace(".000Z", "Z");
  if (check.kind === "pr") {
    return {
      title: `otto stopped working on ${pr} for today: its daily cap is reached`,
      text: `The PR watcher spent ${formatCost(check.spent)} of its ${formatUsd(check.cap)} daily cap (limits.pr_usd_per_day) on ${pr} today (UTC); it does not fix or answer comments on it until ${resume}, or raise limits.pr_usd_per_day.`,
    };
  }
  return {
    title: "The PR watcher stopped model work for today: its daily cap is reached",
    text: `The PR watcher spent ${formatCost(check.spent)} of its ${formatUsd(check.cap)} daily cap (limits.watcher_usd_per_day) on all PRs today (UTC); it does not fix or answer comments on any PR until ${resume}, or raise limits.watcher_usd_per_day.`,
  };
}

/** Today's ledger entries (UTC), from $XDG_DATA_HOME/otto/cost/ledger.jsonl. */
export function readToday(env: Env, now: Date): Promise<LedgerEntry[]> {
  return readLedger(ledgerFile(env), startOfUtcDay(now));
}

export async function readCaps(env: Env, caps: DailyCaps, pr: string, now: Date): Promise<CapCheck> {
  return checkCaps(await readToday(env, now), pr, caps, now);
}

/**
 * True for the first caller of the UTC day for `name` (across processes: an exclusive create),
 * so a day's "cap reached" or "no price" is said once, whoever notices it first.
 */
export async function firstToday(env: Env, name: string, now: Date): Promise<boolean> {
  const dir = path.join(xdgPaths(env).ottoDataDir, "cost", "said");
  await fs.mkdir(dir, { recursive: true });
  // Yesterday's markers are of no use any more.
  const today = utcDay(now);
  for (const file of await fs.readdir(dir).catch(() => [] as string[]))
    if (!file.endsWith(today)) await fs.rm(path.join(dir, file), { force: true });
  try {
    await fs.writeFile(path.join(dir, `${name}-${today}`), "", { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** A fix attempt's spend, or an answered comment's (added up over the passes that tried it). */
export type SpendItem = { attempt: number; usage: Usage } | { comment: string; usage: Usage };

/** The document's spend with `usage` added to today's (a new UTC day starts from zero) and the total, and the item's entry set. */
export function addSpend(spend: PrSpend | undefined, usage: Usage, now: Date, item?: SpendItem): PrSpend {
  const day = utcDay(now);
  const at = now.toISOString();
  const today = spend && spend.day === day ? spend.today : ZERO_USAGE;
  let fixAttempts = spend?.fix_attempts ?? [];
  let comments = spend?.comments ?? [];
  if (item && "attempt" in item)
    fixAttempts = [...fixAttempts.filter((a) => a.attempt !== item.attempt), { attempt: item.attempt, at, usage: item.usage }].slice(
      -MAX_SPEND_ITEMS,
    );
  if (item && "comment" in item) {
    const before = comments.find((c) => c.id === item.comment)?.usage ?? ZERO_USAGE;
    comments = [...comments.filter((c) => c.id !== item.comment), { id: item.comment, at, usage: addUsage(before, item.usage) }].slice(
      -MAX_SPEND_ITEMS,
    );
  }
  return { day, today: addUsage(today, usage), total: addUsage(spend?.total ?? ZERO_USAGE, usage), fix_attempts: fixAttempts, comments };
}

/** Today's spend as the document has it (zero when its day is over). */
export function docSpentToday(spend: PrSpend | undefined, now: Date): Usage {
  return spend && spend.day === utcDay(now) ? spend.today : ZERO_USAGE;
}
