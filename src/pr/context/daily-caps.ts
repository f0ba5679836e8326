import fs from "node:fs/promises";
import path from "node:path";
import type { Config } from "../../config/index.ts";
import { xdgPaths, type Env } from "../../core/index.ts";
import {
  Account,
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
import type { Notify } from "../../notify/index.ts";
import { logLine, type PrDocument, type PrFrontmatter } from "../store/document.ts";
import type { PrStore } from "../store/store.ts";

/*
 * The watcher's daily caps (docs/cost.md, "PR work and the watcher's caps"): limits.pr_usd_per_day
 * per PR and limits.watcher_usd_per_day over all PRs, summed from the ledger's entries of the
 * current UTC day. One call, openPrAccount, decides them for a piece of PR work (a fix, a comment
 * pass) before anything costs: the work gets what is left of the tighter cap as its budget, or, at
 * a cap, the PR waits (no attempt counted, no comment recorded as seen), its document notes the
 * hold once a day, and a person is told once: per PR and day for the PR's cap, once a day for the
 * watcher's. The next cycle after the day turns (or after the cap was raised) tries again. The
 * day arithmetic, the ledger's sums, the checks and the hold are kept together so the decision is
 * read in one place.
 */

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

/** Today's ledger entries (UTC), from $XDG_DATA_HOME/otto/cost/ledger.jsonl. */
export function readToday(env: Env, now: Date): Promise<LedgerEntry[]> {
  return readLedger(ledgerFile(env), startOfUtcDay(now));
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

type Reached = Extract<CapCheck, { kind: "pr" | "watcher" }>;

/** Whether the watcher may start model work for the PR `pr` now, and within what. Pure. */
export function checkCaps(entries: readonly LedgerEntry[], pr: string, caps: DailyCaps, now: Date): CapCheck {
  const prSpent = spentToday(entries, now, pr);
  const watcherSpent = spentToday(entries, now);
  const unpriced = watcherSpent.unpriced > 0;
  if (watcherSpent.usd >= caps.watcherUsd) return { kind: "watcher", spent: watcherSpent, cap: caps.watcherUsd, unpriced };
  if (prSpent.usd >= caps.prUsd) return { kind: "pr", spent: prSpent, cap: caps.prUsd, unpriced };
  const left = Math.min(caps.prUsd - prSpent.usd, caps.watcherUsd - watcherSpent.usd);
  const usd = Math.round(left * 1e6) / 1e6;
  const resume = nextUtcDay(now).toISOString().replace(".000Z", "Z");
  const fix = `It resumes at ${resume} (the next UTC day), or sooner if you raise the cap in otto.jsonc.`;
  return { kind: "open", budget: { usd, fix }, prSpent, watcherSpent, unpriced };
}

/** Which cap a budget stop reached: the spend before the work plus the work's own. Pure. */
export function capReached(check: Extract<CapCheck, { kind: "open" }>, work: Usage, caps: DailyCaps): Reached {
  const watcher = addUsage(check.watcherSpent, work);
  if (watcher.usd >= caps.watcherUsd) return { kind: "watcher", spent: watcher, cap: caps.watcherUsd, unpriced: check.unpriced };
  return { kind: "pr", spent: addUsage(check.prSpent, work), cap: caps.prUsd, unpriced: check.unpriced };
}

/** What a hold at a cap tells the PR's log and the person notified. Pure. */
export function capText(check: Reached, pr: string, now: Date): { title: string; text: string } {
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

/** What the caps touch: the PR's document, the notification, the ledger and markers, the log. */
export interface CapDeps {
  store: PrStore;
  notify: Notify;
  env: Env;
  config: Pick<Config, "limits">;
  now(): Date;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
}

/** Dollar caps cannot count calls of a model without a price: said once a day in the log. */
async function warnUnpriced(deps: CapDeps, unpriced: boolean): Promise<void> {
  if (!unpriced || !(await firstToday(deps.env, "unpriced", deps.now()))) return;
  deps.log(
    "warn",
    "The PR watcher's daily caps are in dollars, but some of today's model calls were of a model without a price in OpenCode's config: their cost is unknown and not counted against limits.pr_usd_per_day or limits.watcher_usd_per_day (their tokens are recorded). Give the model a price (provider.<id>.models.<id>.cost) for the caps to hold.",
  );
}

/** Holds the PR at the cap; the text that says why (for the work's summary). */
async function holdAtCap(deps: CapDeps, doc: PrDocument, check: Reached, what: string): Promise<string> {
  const now = deps.now();
  const day = utcDay(now);
  const { title, text } = capText(check, prLabel(doc.data), now);
  let first = false;
  await deps.store.update(doc.key, (current) => {
    if (current.data.cap_hold === day) return undefined;
    first = true;
    return {
      ...current,
      data: { ...current.data, cap_hold: day },
      log: [...current.log, logLine(now.toISOString(), `${what} held at the daily cap: ${text}`)],
    };
  });
  const notify = check.kind === "pr" ? first : await firstToday(deps.env, "watcher-cap", now);
  if (notify) {
    deps.log("warn", text);
    const report = await deps.notify({
      kind: "human_needed",
      title,
      text,
      url: doc.data.url,
      facts: { Repository: doc.data.repo, Branch: doc.data.branch },
    });
    for (const failure of report.failed) deps.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
  }
  await warnUnpriced(deps, check.unpriced);
  return text;
}

export interface PrAccount {
  account: Account;
  /** After a budget stop: holds the PR at the cap the work reached and says why; undefined when no daily cap applied. */
  holdAtStop(): Promise<string | undefined>;
}

/**
 * The account of one piece of PR work (labels repo, pr, run). Under the watcher's daily caps
 * (`capped`) its budget is what is left of the tighter cap; at a cap there is no account and the
 * PR is held (`held` says why), and work that resumes under the caps ends an earlier hold.
 * Without caps (a run by hand) its budget is `budget`.
 */
export async function openPrAccount(
  deps: CapDeps,
  doc: PrDocument,
  work: { name: string; what: string; capped: boolean; budget?: Budget | undefined },
): Promise<PrAccount | { held: string }> {
  const label = prLabel(doc.data);
  const limits = deps.config.limits;
  const caps: DailyCaps = { prUsd: limits.pr_usd_per_day, watcherUsd: limits.watcher_usd_per_day };
  let check: Extract<CapCheck, { kind: "open" }> | undefined;
  if (work.capped) {
    const found = await readCaps(deps.env, caps, label, deps.now());
    if (found.kind !== "open") return { held: await holdAtCap(deps, doc, found, work.what) };
    check = found;
    if (doc.data.cap_hold) {
      await deps.store.update(doc.key, (current) =>
        current.data.cap_hold ? { ...current, data: { ...current.data, cap_hold: undefined } } : undefined,
      );
    }
    await warnUnpriced(deps, found.unpriced);
  }
  const account = new Account(work.name, {
    labels: { repo: doc.data.repo, pr: label, run: deps.now().toISOString() },
    budget: check ? check.budget : work.budget,
    onUnpricedBudget: () => void warnUnpriced(deps, true).catch(() => undefined),
  });
  const opened = check;
  return {
    account,
    holdAtStop: async () => (opened ? holdAtCap(deps, doc, capReached(opened, account.usage, caps), work.what) : undefined),
  };
}
