import type { PrDocument, PrFrontmatter } from "../store/document.ts";
import type { PrInfo } from "../types.ts";
import { formatUsage, type Usage } from "../../cost/index.ts";
import { FIX_STALE_MS, OTTO_MARKER } from "../store/markers.ts";
import type { Verdict } from "./verdict.ts";

/*
 * The fix flow's decisions as pure functions of the PR document and what the provider said:
 * whether to fix, re-run, refuse or give up, and how an attempt is written into Fix History.
 */

export type Trigger = "watcher" | "manual";

export type StartDecision =
  | { kind: "fix" }
  /** Another fix of this PR is running (status fixing, started recently). */
  | { kind: "busy"; since: string }
  /** The head branch is in a fork; `notify` the first time for this head SHA. */
  | { kind: "fork"; notify: boolean }
  /** max_fix_attempts reached: give up now (comment + notification, once). */
  | { kind: "give_up" }
  /** Gave up earlier: nothing more to do. */
  | { kind: "gave_up"; since: string }
  /** Otto pushed a fix on top of this very head: the forge has not shown it yet (it lags a push by seconds). */
  | { kind: "fix_pending"; sha: string };

export function fixRunning(data: PrFrontmatter, now: Date): boolean {
  if (data.status !== "fixing") return false;
  const started = data.fix_started ? Date.parse(data.fix_started) : Number.NaN;
  // One older than the limit crashed: take it over (planRefresh agrees, see FIX_STALE_MS).
  return !Number.isFinite(started) || now.getTime() - started < FIX_STALE_MS;
}

export function planStart(data: PrFrontmatter, pr: Pick<PrInfo, "fork" | "headSha">, now: Date): StartDecision {
  if (fixRunning(data, now)) return { kind: "busy", since: data.fix_started ?? "" };
  if (pr.fork === true) return { kind: "fork", notify: data.human_sha !== pr.headSha };
  if (data.gave_up) return { kind: "gave_up", since: data.gave_up };
  if (data.fix_sha && data.fix_base_sha === pr.headSha && data.fix_sha !== pr.headSha) return { kind: "fix_pending", sha: data.fix_sha };
  if (data.fix_attempts >= data.max_fix_attempts) return { kind: "give_up" };
  return { kind: "fix" };
}

export type InfraDecision = { kind: "rerun" } | { kind: "human"; notify: boolean };

/** An infrastructure failure re-runs the failed jobs once per head SHA; a second one needs a person. */
export function planInfrastructure(data: PrFrontmatter, headSha: string): InfraDecision {
  if (!(data.rerun_shas ?? []).includes(headSha)) return { kind: "rerun" };
  return { kind: "human", notify: data.human_sha !== headSha };
}

/** How one fix attempt ended (phase 2 and the push). */
export type AttemptOutcome =
  | "pushed"
  | "nothing"
  | "verify_failed"
  | "review_rejected"
  | "review_failed"
  | "task_failed"
  | "weakened"
  | "conflict"
  | "rejected"
  | "wrong_branch"
  | "tampered";

/**
 * After an attempt that did not push: another attempt now, or stop. A fresh session can do better
 * after no change, a failed local check, a fix the review rejected twice, a fix refused because it
 * weakened the checks (told which files and why) or a session that gave up;
 * a conflict, a rejected push, a wrong branch, a changed git configuration or a review that could
 * not be had would only happen again.
 */
export function nextStep(outcome: AttemptOutcome, attempts: number, max: number): "wait" | "retry" | "give_up" | "stop" {
  if (outcome === "pushed") return "wait";
  if (attempts >= max) return "give_up";
  return outcome === "nothing" ||
    outcome === "verify_failed" ||
    outcome === "review_rejected" ||
    outcome === "task_failed" ||
    outcome === "weakened"
    ? "retry"
    : "stop";
}

export interface HistoryEntry {
  time: string;
  trigger: Trigger;
  /** "Attempt 2", "Re-run", "Refused", "Gave up", "Error". */
  title: string;
  headSha: string;
  failedChecks: readonly string[];
  verdict?: Verdict | undefined;
  /** The failure summary (an excerpt is kept). */
  summary?: string | undefined;
  commit?: string | undefined;
  result: string;
  /** What the attempt's model calls cost. */
  spend?: Usage | undefined;
}

const short = (sha: string): string => sha.slice(0, 7);
const PLACEHOLDER = /^_No fix attempts yet\._$/;

/** The first lines of a summary, at most `maxChars`, as a markdown quote. */
function quotedExcerpt(text: string, maxLines = 12, maxChars = 1200): string {
  const lines = text
    .trim()
    .split(/\r?\n/)
    .filter((l, i, all) => l.trim() !== "" || (i > 0 && all[i - 1]?.trim() !== ""));
  let out = lines.slice(0, maxLines).join("\n");
  if (out.length > maxChars) out = `${out.slice(0, maxChars)}…`;
  else if (lines.length > maxLines) out += "\n…";
  return out
    .split("\n")
    .map((l) => `  > ${l}`.trimEnd())
    .join("\n");
}

export function renderEntry(entry: HistoryEntry): string {
  const checks = entry.failedChecks.length > 0 ? ` (${entry.failedChecks.join(", ")})` : "";
  const lines = [
    `### ${entry.title} — ${entry.time}`,
    `- **Trigger**: ${entry.trigger === "manual" ? "/otto-pr fix" : "watcher"}: pipeline failed on \`${short(entry.headSha)}\`${checks}`,
  ];
  if (entry.verdict) lines.push(`- **Verdict**: ${entry.verdict}`);
  if (entry.commit) lines.push(`- **Commit**: \`${entry.commit}\``);
  lines.push(`- **Result**: ${entry.result.replace(/\s*\n\s*/g, " ")}`);
  if (entry.spend) lines.push(`- **Spend**: ${formatUsage(entry.spend)}`);
  if (entry.summary?.trim()) lines.push("- **Failure summary**:", quotedExcerpt(entry.summary));
  return lines.join("\n");
}

/** The document's sections with `entry` appended to Fix History (created when missing). */
export function appendHistory(sections: PrDocument["sections"], entry: string): PrDocument["sections"] {
  const index = sections.findIndex((s) => s.title === "Fix History");
  if (index < 0) return [{ title: "Fix History", body: entry }, ...sections];
  return sections.map((s, i) => {
    if (i !== index) return s;
    const body = s.body.trim();
    return { ...s, body: body === "" || PLACEHOLDER.test(body) ? entry : `${body}\n\n${entry}` };
  });
}

/** Fix History for the next fix session, or undefined when there is none yet. */
export function previousAttempts(sections: PrDocument["sections"]): string | undefined {
  const body = sections.find((s) => s.title === "Fix History")?.body.trim() ?? "";
  return body === "" || PLACEHOLDER.test(body) ? undefined : body;
}

/** The one comment otto posts when it stops trying. The marker keeps it out of reviewer comments. */
export function giveUpComment(attempts: number, summary: string | undefined): string {
  const lines = [
    OTTO_MARKER,
    `otto: giving up after ${attempts} attempt${attempts === 1 ? "" : "s"} to fix the failing pipeline. A person needs to look at it.`,
  ];
  if (summary?.trim()) lines.push("", "Last failure summary:", "", quotedExcerpt(summary, 20, 2000).replace(/^ {2}/gm, ""));
  return lines.join("\n");
}

/** The commit message of a fix: the session's `Fix summary:` line as the subject, and a trailer. */
export function commitMessage(input: {
  number: number;
  key: string;
  attempt: number;
  subject: string | undefined;
  checks: readonly string[];
  /** A line saying which tests or check configuration the fix changed because the analysis named them. */
  named?: string | undefined;
}): string {
  const subject = (input.subject ?? `Fix failing checks: ${input.checks.join(", ") || "pipeline"}`)
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 72);
  const named = input.named ? `\n\n${input.named}` : "";
  return `${subject}\n\nFixes the failing pipeline of PR #${input.number}${input.checks.length > 0 ? ` (${input.checks.join(", ")})` : ""}.${named}\n\nOtto-Fix: ${input.key} attempt ${input.attempt}\n`;
}
