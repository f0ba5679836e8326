import { formatUsage, type Account, type Usage } from "../../cost/index.ts";
import type { PrInfo } from "../../pr/index.ts";
import { findingLine, consensusText, type ReviewerOutcome } from "./report.ts";
import { PRIORITIES, type Consensus, type Counts, type Finding } from "./schemas.ts";

/** What one round did, for the summary the tool returns. */
export interface RoundRecord {
  round: number;
  consensus?: Consensus;
  counts?: Counts;
  reviewers?: ReviewerOutcome[];
  fix?: { fixed: number; rejected: number; pushed?: string };
  next: string;
  /** Tags of the comments posted this round (see finishComment), in order. */
  comments: Array<{ kind: "review report" | "fix report" | "failure report"; tag: string }>;
  /** The round's account (its reviewers, analyzer and fix are children of it). */
  account?: Account;
}

export interface LoopResult {
  pr: PrInfo;
  rounds: RoundRecord[];
  /** The last round's consensus; undefined when no round produced one. */
  consensus?: Consensus;
  /** How the loop ended, one sentence. */
  outcome: string;
  stuck: Finding[];
  notes: string[];
  /** Comment tag → its URL on the forge, when it could be found again. */
  links: ReadonlyMap<string, string>;
  /** What the whole loop spent, and its budget's "spent X of Y" line. */
  spend?: { usage: Usage; line: string };
  /** The budget stopped the loop: the stop and what was left undone. */
  budgetStop?: { message: string; undone: string; fix?: string };
}

const countCell = (r: RoundRecord, pick: (c: Counts) => number): string => (r.counts ? String(pick(r.counts)) : "-");

function reviewersCell(r: RoundRecord): string {
  if (!r.reviewers) return "-";
  const ok = r.reviewers.filter((x) => x.ok).length;
  return ok === r.reviewers.length ? `${ok}/${r.reviewers.length}` : `${ok}/${r.reviewers.length} (partial)`;
}

function fixCell(r: RoundRecord): string {
  if (!r.fix) return "-";
  return `${r.fix.fixed} fixed, ${r.fix.rejected} rejected${r.fix.pushed ? `, pushed ${r.fix.pushed.slice(0, 7)}` : ""}`;
}

/** The markdown the tool returns: outcome, final consensus, a row per round, links to the comments. */
export function renderSummary(result: LoopResult): string {
  const { pr } = result;
  const lines = [
    `## otto review loop: PR #${pr.number} (${pr.repo}): ${pr.title}`,
    "",
    pr.url,
    "",
    `Final consensus: **${result.consensus ? consensusText(result.consensus) : "none"}**. ${result.outcome}`,
    "",
  ];
  if (result.spend) lines.push(`Spent: ${formatUsage(result.spend.usage)}${result.budgetStop ? ` (${result.spend.line})` : ""}.`, "");
  if (result.budgetStop) {
    lines.push(`**${result.budgetStop.message}**`, "", `Left undone: ${result.budgetStop.undone}`, "");
    if (result.budgetStop.fix) lines.push(result.budgetStop.fix, "");
  }
  lines.push(
    `| round | consensus | ${PRIORITIES.join(" | ")} | reviewers | fix | spend |`,
    `|---|---|${PRIORITIES.map(() => "---").join("|")}|---|---|---|`,
  );
  for (const r of result.rounds) {
    lines.push(
      `| ${r.round} | ${r.consensus ? consensusText(r.consensus) : "-"} | ${PRIORITIES.map((p) => countCell(r, (c) => c[p])).join(" | ")} | ${reviewersCell(r)} | ${fixCell(r)} | ${r.account ? formatUsage(r.account.usage) : "-"} |`,
    );
  }
  lines.push("");
  for (const r of result.rounds) {
    lines.push(`### Round ${r.round}`, "", `- ${r.next}`);
    for (const r2 of r.reviewers?.filter((x) => !x.ok) ?? []) lines.push(`- ${r2.name} (${r2.model}) failed: ${r2.error ?? "no answer"}`);
    for (const c of r.comments) lines.push(`- ${c.kind}: ${result.links.get(c.tag) ?? pr.url}`);
    lines.push("");
  }
  if (result.stuck.length > 0) lines.push("### Stuck findings (need a person)", "", ...result.stuck.map(findingLine), "");
  if (result.notes.length > 0) lines.push("### Notes", "", ...result.notes.map((n) => `- ${n}`), "");
  return lines.join("\n").trimEnd();
}
