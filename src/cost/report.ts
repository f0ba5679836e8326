import { OttoError } from "../core/errors.ts";
import { tryParseDuration } from "../config/index.ts";
import type { LedgerEntry } from "./ledger.ts";
import { addUsage, formatCost, formatTokens, formatUsage, formatUsd, knownUsd, totalTokens, ZERO_USAGE, type Usage } from "./usage.ts";
import { cell } from "../core/index.ts";

/*
 * `/otto-cost`: the ledger grouped into a table, pure (the tool reads the ledger and the flags).
 * docs/cost.md, "The report: /otto-cost".
 */

export const REPORT_KEYS = ["day", "spec", "pr", "model"] as const;
export type ReportKey = (typeof REPORT_KEYS)[number];

/** The default window: a week answers "what did otto spend lately" without a flag. */
export const DEFAULT_SINCE = "7d";

export interface ReportRow {
  /** The group: a UTC date, a spec slug, a PR key, "provider/model"; "(none)" for calls without that label. */
  key: string;
  usage: Usage;
}

export interface CostReport {
  by: ReportKey;
  /** The start of the window (ISO). */
  since: string;
  /** The repositories counted, or "all". */
  repos: readonly string[] | "all";
  rows: ReportRow[];
  total: Usage;
  /** Calls in the window left out because they belong to another repository (or name none). */
  otherRepos: Usage;
  /** What flake and inherited verdicts saved in the window: an estimate, never part of the spend. */
  saved?: VerdictSaving | undefined;
  /** Of the total: what rules learning spent (calls labelled `rules`), its own scope. */
  learning: Usage;
}

/**
 * What the PR fix flow's flake and inherited verdicts saved (docs/pr-fix.md): each verdict is a fix
 * that did not run, priced at its repository's median fix run. An estimate, kept apart from the spend.
 */
export interface VerdictSaving {
  verdicts: number;
  flaky: number;
  inherited: number;
  usd: number;
  tokens: number;
  /** The fix runs the medians were taken from. */
  fixes: number;
  /** Verdicts in repositories without a fix yet to compare with: counted, not priced. */
  unpriced: number;
}

/** The label a row stands for when a call has none of that kind (a PR flow's calls have no spec). */
export const NO_LABEL = "(none)";

export function parseReportKey(text: string | undefined): ReportKey {
  if (text === undefined) return "day";
  const key = REPORT_KEYS.find((k) => k === text.trim().toLowerCase());
  if (!key)
    throw new OttoError(
      "usage",
      `--by ${text} is not a way to group the report.`,
      `Write --by ${REPORT_KEYS.join(", --by ")} (default: day).`,
    );
  return key;
}

/**
 * The start of the window: a duration back from `now` (7d, 24h, 30m, 1h30m) or a date (2026-11-01,
 * read as UTC midnight, or a full ISO time).
 */
export function parseSince(text: string | undefined, now: Date): Date {
  const raw = (text ?? DEFAULT_SINCE).trim();
  const ms = tryParseDuration(raw);
  if (ms !== undefined) return new Date(now.getTime() - ms);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw)) {
    const at = new Date(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
    if (!Number.isNaN(at.getTime())) return at;
  }
  throw new OttoError(
    "usage",
    `--since ${raw} is neither a duration nor a date.`,
    "Write a duration back from now, like --since 7d, 24h or 30m, or a date, like --since 2026-11-01 (UTC).",
  );
}

function keyOf(entry: LedgerEntry, by: ReportKey): string {
  switch (by) {
    case "day":
      return entry.at.slice(0, 10);
    case "model":
      return entry.model || NO_LABEL;
    case "spec":
      return entry.labels?.spec || NO_LABEL;
    case "pr":
      return entry.labels?.pr || NO_LABEL;
  }
}

/**
 * Groups the entries at or after `since` of the given repositories (labels.repo; "all" for every
 * one) by `by`. Days run oldest first; other groups most expensive first (tokens break ties, and
 * "(none)" goes last).
 */
export function buildReport(
  entries: readonly LedgerEntry[],
  options: { by: ReportKey; since: Date; repos: readonly string[] | "all" },
): CostReport {
  const from = options.since.toISOString();
  const repos = options.repos === "all" ? undefined : new Set(options.repos);
  const groups = new Map<string, Usage>();
  let total = ZERO_USAGE;
  let otherRepos = ZERO_USAGE;
  let learning = ZERO_USAGE;
  for (const entry of entries) {
    if (entry.at < from) continue;
    if (repos && !(entry.labels?.repo && repos.has(entry.labels.repo))) {
      otherRepos = addUsage(otherRepos, entry.usage);
      continue;
    }
    const key = keyOf(entry, options.by);
    groups.set(key, addUsage(groups.get(key) ?? ZERO_USAGE, entry.usage));
    total = addUsage(total, entry.usage);
    if (entry.labels?.rules) learning = addUsage(learning, entry.usage);
  }
  const rows = [...groups].map(([key, usage]) => ({ key, usage }));
  if (options.by === "day") rows.sort((a, b) => a.key.localeCompare(b.key));
  else
    rows.sort(
      (a, b) =>
        Number(a.key === NO_LABEL) - Number(b.key === NO_LABEL) ||
        b.usage.usd - a.usage.usd ||
        totalTokens(b.usage) - totalTokens(a.usage) ||
        a.key.localeCompare(b.key),
    );
  return { by: options.by, since: from, repos: options.repos, rows, total, otherRepos, learning };
}

function line(name: string, usage: Usage): string {
  return `| ${name} | ${usage.requests} | ${formatTokens(usage.input)} | ${formatTokens(usage.cacheRead)} | ${formatTokens(usage.cacheWrite)} | ${formatTokens(usage.output)} | ${formatTokens(totalTokens(usage))} | ${formatCost(usage)} |`;
}

/** The markdown the command shows: one line naming the total, the table, what was left out. */
export function renderReport(report: CostReport): string {
  const scope = report.repos === "all" ? "all repositories" : `this repository (${report.repos[0] ?? ""})`;
  const head = `otto spent ${formatUsage(report.total)} since ${report.since.replace(/\.\d{3}Z$/, "Z")} in ${scope}.`;
  const lines = [head, ""];
  if (report.rows.length === 0) lines.push("No model calls on record in that window.");
  else {
    lines.push(
      `| ${report.by} | calls | input | cache read | cache write | output | tokens | cost |`,
      "|---|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const row of report.rows) lines.push(line(cell(row.key), row.usage));
    lines.push(line("**total**", report.total));
  }
  const notes: string[] = [];
  if (report.learning.requests > 0)
    notes.push(
      `Rules learning (/otto-rules learn and the watcher's daily run): ${report.learning.requests} call(s), ${formatTokens(totalTokens(report.learning))} tokens, ${formatCost(report.learning)}; part of the total above.`,
    );
  if (report.total.unpriced > 0)
    notes.push(
      `${report.total.unpriced} call(s) used a model without a price in OpenCode's config: their cost is unknown, not $0 ("≥" marks a lower bound). Give the model a cost in opencode.json to have them priced.`,
    );
  if (report.otherRepos.requests > 0)
    notes.push(
      `${report.otherRepos.requests} call(s) in other repositories (${formatTokens(totalTokens(report.otherRepos))} tokens, ${formatCost(report.otherRepos)}) are not counted here: add --all to include them.`,
    );
  if (notes.length > 0) lines.push("", ...notes);
  if (report.saved && report.saved.verdicts > 0) lines.push("", savedLine(report.saved));
  return lines.join("\n");
}

/** One line, labelled as an estimate: the verdicts are fixes that never ran, so nothing here was spent. */
function savedLine(saved: VerdictSaving): string {
  const kinds = `${saved.flaky} flaky, ${saved.inherited} inherited`;
  const priced = saved.verdicts - saved.unpriced;
  const amount =
    priced > 0
      ? `about ${formatUsd(saved.usd)}, ${formatTokens(saved.tokens)} tokens (median of ${saved.fixes} fix${saved.fixes === 1 ? "" : "es"})`
      : "not priced yet (no fix in their repositories to compare with)";
  const unpriced = priced > 0 && saved.unpriced > 0 ? `; ${saved.unpriced} of them in repositories with no fix yet are not priced` : "";
  return `Saved by flake and inherited verdicts (an estimate, not part of the spend above): ${saved.verdicts} verdict${saved.verdicts === 1 ? "" : "s"} (${kinds}), ${amount}${unpriced}.`;
}

function jsonUsage(usage: Usage) {
  return { ...usage, tokens: totalTokens(usage), ...(knownUsd(usage) === undefined ? { usd: null } : {}) };
}

/** `--json`: the rows and total with every usage field, `tokens` summed, `usd` null when every call was unpriced. */
export function reportJson(report: CostReport): string {
  return JSON.stringify(
    {
      since: report.since,
      by: report.by,
      repos: report.repos,
      rows: report.rows.map((row) => ({ key: row.key, ...jsonUsage(row.usage) })),
      total: jsonUsage(report.total),
      otherRepos: jsonUsage(report.otherRepos),
      learning: jsonUsage(report.learning),
      ...(report.saved ? { saved: { estimate: true, ...report.saved } } : {}),
    },
    null,
    2,
  );
}
