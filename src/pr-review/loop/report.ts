import { OTTO_MARKER, sanitizeForPost } from "../../pr/index.ts";
import { byPriority, countByPriority } from "./findings.ts";
import type { FixAccount } from "./fix-plan.ts";
import { PRIORITIES, type Consensus, type Counts, type Finding, type ReviewState } from "./schemas.ts";
import { oneLine } from "../../core/index.ts";

/** Every comment the loop posts carries this (docs/pr-review-loop.md, "What otto posts"), so analyzers and watchers skip it. */
export const LOOP_MARKER = "<!-- pr-review-loop-marker -->";

/** GitHub rejects comment bodies over 65,536 characters; stay well under it. */
const MAX_COMMENT_CHARS = 60_000;
const TRUNCATED = "\n\n[TRUNCATED_COMMENT]";

export interface ReviewerOutcome {
  name: string;
  model: string;
  ok: boolean;
  /** Why it failed (redacted error), when it did. */
  error?: string;
  findings: number;
  conclusion?: string;
  report?: string;
}

export interface RoundReview {
  round: number;
  maxRounds: number;
  consensus: Consensus;
  reviewers: ReviewerOutcome[];
  reviewState: ReviewState;
  /** Reviewer findings (all of them, counted without deduplication). */
  findings: Finding[];
  /** Unresolved reviewer comments still asking for something. */
  threads: Finding[];
  stuck: Finding[];
  /** What happens next, one sentence. */
  next: string;
}

export interface FixRound {
  round: number;
  account: FixAccount;
  checks: Array<{ command: string; passed: boolean; output: string }>;
  /** Push outcome and commit, or why nothing was pushed. */
  push: string;
  note?: string;
}

const CONSENSUS_TEXT: Record<Consensus, string> = {
  approve: "approve",
  request_changes: "request changes",
  needs_major_work: "needs major work",
};

export function consensusText(consensus: Consensus): string {
  return CONSENSUS_TEXT[consensus];
}

/** The marker lines, a tag that finds this comment again, then the sanitized, size-capped body. */
export function finishComment(tag: string, body: string, secrets: readonly string[]): string {
  const clean = sanitizeForPost(body, secrets);
  const capped = clean.length > MAX_COMMENT_CHARS ? clean.slice(0, MAX_COMMENT_CHARS) + TRUNCATED : clean;
  return `${LOOP_MARKER}\n${OTTO_MARKER}\n<!-- otto-loop:${tag} -->\n${capped}`;
}

export function countsTable(counts: Counts): string {
  return `| P0 | P1 | P2 | P3 |\n|---|---|---|---|\n| ${PRIORITIES.map((p) => counts[p]).join(" | ")} |`;
}

function where(f: Finding): string {
  if (!f.file) return "";
  return f.line === null ? ` \`${f.file}\`` : ` \`${f.file}:${f.line}\``;
}

/** Model text on one line; diff blocks go first, while their line structure still shows them. */
const postLine = (text: string): string => oneLine(sanitizeForPost(text));

/** One line per finding: id, place, title, who found it, what and how to fix. */
export function findingLine(f: Finding): string {
  const details = [postLine(f.description), f.suggestion ? `Suggestion: ${postLine(f.suggestion)}` : ""].filter(Boolean).join(" ");
  const rule = f.rule ? ` [team rule \`${f.rule}\`]` : "";
  return `- **${f.id}**${where(f)}: ${postLine(f.title)}${rule} (${f.source.name})${details ? ` — ${details}` : ""}`;
}

function findingSections(findings: readonly Finding[]): string[] {
  const out: string[] = [];
  for (const priority of PRIORITIES) {
    const some = byPriority(findings).filter((f) => f.priority === priority);
    if (some.length > 0) out.push(`### ${priority}`, "", ...some.map(findingLine), "");
  }
  return out;
}

function reviewersLine(reviewers: readonly ReviewerOutcome[]): string[] {
  const ok = reviewers.filter((r) => r.ok);
  const lines = [`Reviewers: ${ok.length}/${reviewers.length} answered (${reviewers.map((r) => `${r.name}: ${r.model}`).join(", ")}).`];
  for (const r of reviewers.filter((x) => !x.ok))
    lines.push(`- ⚠️ partial review: ${r.name} (${r.model}) failed: ${r.error ?? "no answer"}`);
  return lines;
}

function stateLine(state: ReviewState): string {
  if (!state.hasChangesRequested) return "Review state: no changes requested by an owner, member or collaborator.";
  return `Review state: changes requested by ${state.changesRequestedBy.map((b) => `@${b.login} (${b.note ?? b.association})`).join(", ")}.`;
}

/** The review report of one round (posted on the PR). */
export function renderReviewReport(r: RoundReview): string {
  const all = [...r.findings, ...r.threads];
  const lines = [
    `## otto review loop: round ${r.round}/${r.maxRounds}, consensus **${consensusText(r.consensus)}**`,
    "",
    ...reviewersLine(r.reviewers),
    stateLine(r.reviewState),
    "",
    countsTable(countByPriority(all)),
    "",
    ...findingSections(r.findings),
  ];
  if (r.threads.length > 0) lines.push("### Unresolved review comments", "", ...byPriority(r.threads).map(findingLine), "");
  if (r.stuck.length > 0)
    lines.push("### Stuck (reported fixed, found again; not sent to the fix agent again)", "", ...r.stuck.map(findingLine), "");
  lines.push(`**Next:** ${r.next}`);
  return lines.join("\n");
}

/** The fix report of one round (posted on the PR). */
export function renderFixReport(f: FixRound): string {
  const lines = [`## otto review loop: fixes of round ${f.round}`, ""];
  lines.push(`Fixed: ${f.account.fixed.length}, rejected: ${f.account.rejected.length}.`, "");
  if (f.account.fixed.length > 0)
    lines.push("### Fixed", "", ...f.account.fixed.map((x) => `- **${x.findingId}**: ${postLine(x.description) || "fixed"}`), "");
  if (f.account.rejected.length > 0)
    lines.push(
      "### Rejected",
      "",
      ...f.account.rejected.map((x) => `- **${x.findingId}**: ${postLine(x.reason) || "no reason given"}`),
      "",
    );
  if (f.checks.length > 0) {
    lines.push("### Checks (pr.verify)", "");
    for (const c of f.checks) {
      lines.push(`- ${c.passed ? "✅" : "❌"} \`${c.command}\``);
      if (!c.passed && c.output.trim()) lines.push("", "```text", c.output.trim().split("\n").slice(-30).join("\n"), "```", "");
    }
    lines.push("");
  }
  lines.push(`**Push:** ${f.push}`);
  if (f.note) lines.push("", f.note);
  return lines.join("\n");
}

/** Posted when the loop stops on an error after it started (no credible review, a model mismatch, a failed fix). */
export function renderFailureReport(round: number, reason: string, detail?: string): string {
  const lines = [`## otto review loop stopped in round ${round}`, "", reason];
  if (detail) lines.push("", detail);
  return lines.join("\n");
}
