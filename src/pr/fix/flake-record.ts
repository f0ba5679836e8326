import { formatError, redact } from "../../core/index.ts";
import { formatTokens, formatUsd } from "../../cost/index.ts";
import type { Notify } from "../../notify/index.ts";
import { parseDuration, type Config } from "../../config/index.ts";
import {
  addFixCost,
  addFlake,
  dueForNotice,
  flakeLedgerFile,
  medianFixCost,
  recentOccurrences,
  updateFlakeLedger,
  type FlakeEntry,
  type FlakeLedger,
  type FlakeOccurrence,
  type FlakeVerdict,
} from "../store/flakes.ts";
import type { PrFrontmatter } from "../store/document.ts";
import type { NewIssue, PrBackend } from "../backend.ts";
import { sanitizeForPost } from "../sanitize.ts";

/*
 * What a flake or an inherited failure leaves behind: occurrences in the repository's flake ledger
 * (src/pr/store/flakes.ts), one notification per flaky failure once it recurs (pr.flakes.notify_after
 * within pr.flakes.window) and one per failure the default branch has, and what the verdict saved:
 * the median of the fixes otto ran in this repository, which a flake no longer costs.
 */

export interface FlakeDeps {
  storeDir: string;
  config: Config;
  notify: Notify;
  /** Redacted from an issue otto opens. */
  secrets: readonly string[];
  /** The PR's forge: where pr.flakes.open_issue opens an issue or work item. */
  backend?: Pick<PrBackend, "openIssue"> | undefined;
  now(): Date;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
}

export interface FlakyCheck {
  name: string;
  fingerprint?: string | undefined;
  lines: readonly string[];
  url?: string | undefined;
}

type PrRef = Pick<PrFrontmatter, "provider" | "repo" | "url" | "id"> & { key: string; head: string };

/** The ledger key of a check's failure: its fingerprint, or the check's name when its log named nothing (never matched as known). */
export const flakeKey = (check: FlakyCheck): string => check.fingerprint ?? `check:${check.name}`;

export const ledgerOf = (deps: Pick<FlakeDeps, "storeDir">, pr: Pick<PrRef, "provider" | "repo">): string =>
  flakeLedgerFile(deps.storeDir, pr.provider, pr.repo);

/** "saved about $0.12 and 45k tokens (the median of 4 fixes in this repository)", or why it cannot say. */
export function savedLine(ledger: FlakeLedger): string {
  const median = medianFixCost(ledger);
  if (!median) return "no model call (no fix in this repository yet to compare with)";
  return `no model call: saved about ${formatUsd(median.usd)} and ${formatTokens(median.tokens)} tokens (the median of ${median.runs} fix(es) in this repository)`;
}

/** Records each check as a flake of this PR's head; notifies once per window for a flake that keeps coming back. */
export async function recordFlakes(deps: FlakeDeps, pr: PrRef, checks: readonly FlakyCheck[], verdict: FlakeVerdict): Promise<FlakeLedger> {
  const window = parseDuration(deps.config.pr.flakes.window);
  const after = deps.config.pr.flakes.notify_after;
  const now = deps.now();
  const due: string[] = [];
  const ledger = await updateFlakeLedger(
    ledgerOf(deps, pr),
    (current) => {
      let next = current;
      for (const check of checks)
        next = addFlake(next, flakeKey(check), check.lines, {
          pr: pr.key,
          number: Number(pr.id),
          url: pr.url,
          ...(check.url ? { run_url: check.url } : {}),
          head: pr.head,
          check: check.name,
          at: now.toISOString(),
          verdict,
        });
      for (const key of new Set(checks.map(flakeKey))) {
        const entry = next.flakes[key];
        if (entry && dueForNotice(entry, now, window, after)) {
          due.push(key);
          next = { ...next, flakes: { ...next.flakes, [key]: { ...entry, notified: now.toISOString() } } };
        }
      }
      return next;
    },
    pr,
  );
  for (const key of due) {
    const entry = ledger.flakes[key];
    if (!entry) continue;
    const recent = recentOccurrences(entry, now, window);
    const name = entry.lines[0] ?? recent.at(-1)?.check ?? key;
    const evidence = recent
      .slice(-5)
      .map((o) => `PR #${o.number} ${o.check} on ${o.head.slice(0, 7)} (${o.verdict}${o.run_url ? `: ${o.run_url}` : ""})`)
      .join("; ");
    const issue = await openIssue(deps, pr, key, entry, recent);
    const report = await deps.notify({
      kind: "human_needed",
      title: `Flaky in ${pr.repo}: ${name}`,
      text: `Judged flaky ${recent.length} time(s) within ${deps.config.pr.flakes.window}: ${evidence}. Failure lines: ${entry.lines.join(" | ") || "(none)"}.${issue ? ` ${issue}` : ""} /otto-pr flakes lists them all.`,
      url: recent.at(-1)?.run_url ?? pr.url,
      facts: { Repository: pr.repo, Fingerprint: key },
    });
    for (const failure of report.failed) deps.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
  }
  return ledger;
}

/** The issue's title and body: the failure lines, its fingerprint, the occurrences with links; sanitized like every post. */
export function flakeIssue(
  repo: string,
  key: string,
  entry: FlakeEntry,
  recent: readonly FlakeOccurrence[],
  window: string,
  secrets: readonly string[],
): NewIssue {
  const name = entry.lines[0] ?? recent.at(-1)?.check ?? key;
  const lines = entry.lines.length > 0 ? ["~~~~text", ...entry.lines, "~~~~"] : ["(its log named no failing test or error line)"];
  const body = [
    `otto judged this failure of ${repo} flaky ${recent.length} time(s) within ${window}: it failed on the forge and passed on a re-run of the same commit or in otto's sandbox, or it was a failure otto already knew as flaky. Otto does not fix a flaky failure in the PR it meets it in; the test itself needs fixing.`,
    "",
    `**Failure lines** (normalised; fingerprint \`${key}\`):`,
    "",
    ...lines,
    "",
    "**Occurrences**:",
    "",
    ...recent.map(
      (o) =>
        `- [PR #${o.number}](${o.url}): \`${o.check}\` on \`${o.head.slice(0, 7)}\` at ${o.at} (${VERDICT_TEXT[o.verdict]})${o.run_url ? `: [the failed run](${o.run_url})` : ""}`,
    ),
    "",
    "`/otto-pr flakes` lists every flaky failure otto has recorded in this repository.",
  ].join("\n");
  return { title: sanitizeForPost(`Flaky: ${cut(name, 200)}`, secrets), body: sanitizeForPost(body, secrets) };
}

const VERDICT_TEXT: Record<FlakeVerdict, string> = {
  rerun: "passed on the re-run",
  local: "passed in otto's sandbox",
  known: "known flaky",
};

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * pr.flakes.open_issue: one issue or work item per flaky failure, its URL kept in the ledger so it is
 * never opened twice. Returns what the notification says of it; a refusal (a token without the
 * scope) is said there, not thrown.
 */
async function openIssue(
  deps: FlakeDeps,
  pr: PrRef,
  key: string,
  entry: FlakeEntry,
  recent: readonly FlakeOccurrence[],
): Promise<string | undefined> {
  if (!deps.config.pr.flakes.open_issue) return undefined;
  if (entry.issue) return `Its issue: ${entry.issue}.`;
  if (!deps.backend?.openIssue) return `No issue opened: otto cannot open one on ${pr.provider}.`;
  try {
    const { url } = await deps.backend.openIssue(
      pr.repo,
      flakeIssue(pr.repo, key, entry, recent, deps.config.pr.flakes.window, deps.secrets),
    );
    await updateFlakeLedger(ledgerOf(deps, pr), (current) => {
      const now = current.flakes[key];
      return now ? { ...current, flakes: { ...current.flakes, [key]: { ...now, issue: now.issue ?? url } } } : undefined;
    });
    return `Opened ${url}.`;
  } catch (error) {
    const message = redact(formatError(error), deps.secrets);
    deps.log("warn", `could not open an issue for the flaky failure ${key} in ${pr.repo}`, { error: message });
    // 403/404: the token lacks the scope (GitHub hides what a token may not write behind a 404 too).
    const scope = /\b40[34]\b/.test(message)
      ? " The token needs issues: write on GitHub, or Edit work items in this node on Azure DevOps."
      : " otto tries again at the next notice.";
    return `Could not open an issue (pr.flakes.open_issue): ${message}${scope}`;
  }
}

/** PR heads kept per failure of the default branch: the newest. */
const MAX_HEADS = 100;

export interface InheritedCheck {
  name: string;
  fingerprint: string;
  lines: readonly string[];
  /** The default branch's commit whose run fails this way. */
  baseSha: string;
}

/**
 * Records failures the default branch has too; returns, per check, the commit main has been red
 * since (the first one otto saw) and whether this is the first time otto saw it (notify once per fingerprint).
 */
export async function recordInherited(
  deps: FlakeDeps,
  pr: PrRef,
  checks: readonly InheritedCheck[],
): Promise<{ ledger: FlakeLedger; since: Map<string, string>; first: InheritedCheck[] }> {
  const now = deps.now().toISOString();
  const first: InheritedCheck[] = [];
  const since = new Map<string, string>();
  const ledger = await updateFlakeLedger(
    ledgerOf(deps, pr),
    (current) => {
      const red = { ...current.red_main };
      for (const check of checks) {
        const known = red[check.fingerprint];
        if (!known || !known.notified) first.push(check);
        red[check.fingerprint] = {
          check: check.name,
          since: known?.since ?? check.baseSha,
          first_seen: known?.first_seen ?? now,
          last_seen: now,
          lines: known?.lines.length ? known.lines : [...check.lines],
          prs: [...new Set([...(known?.prs ?? []), pr.key])].slice(-50),
          heads: known?.heads.some((h) => h.pr === pr.key && h.head === pr.head)
            ? known.heads
            : [...(known?.heads ?? []), { pr: pr.key, head: pr.head, at: now }].slice(-MAX_HEADS),
          notified: true,
        };
        since.set(check.name, red[check.fingerprint]!.since);
      }
      return { ...current, red_main: red };
    },
    pr,
  );
  return { ledger, since, first };
}

/** Adds a fix run's cost to the ledger (for the median a later flake saves). */
export async function recordFixCost(
  deps: Pick<FlakeDeps, "storeDir" | "now">,
  pr: Pick<PrRef, "provider" | "repo">,
  usd: number,
  tokens: number,
): Promise<void> {
  await updateFlakeLedger(ledgerOf(deps, pr), (current) => addFixCost(current, { at: deps.now().toISOString(), usd, tokens }), pr);
}
