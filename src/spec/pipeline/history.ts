import { redact } from "../../core/index.ts";
import { formatCritique, type Critique, type PassDialog, type ReviewPass } from "../../review/index.ts";
import { renderSpendSection, spendLine, type StageSpend } from "./spend.ts";

/** One stage run, as recorded under the spec's history/ folder for debugging. */
export interface HistoryRecord {
  /** `design`, `task-generate`, `questions`, `run` … */
  stage: string;
  slug: string;
  at: Date;
  /** One line: what happened ("wrote design.md (refinement)", "failed: …"). */
  outcome: string;
  models: Record<string, string>;
  passes?: readonly ReviewPass[];
  critiques?: readonly Critique[];
  /** Warnings, restored tasks, added questions … */
  notes?: readonly string[];
  /** What the run spent (tokens and dollars, per pass and per model): `/otto-spec status` sums these. */
  spend?: StageSpend;
  /** Conversations of the sessions; only the primary's (not the reviewers') are kept. */
  dialogs?: readonly PassDialog[];
}

/** `2026-02-06T12-00-00-123Z-design.md`: sortable, and safe on every file system. */
export function historyFileName(at: Date, stage: string): string {
  return `${at.toISOString().replace(/:/g, "-").replace(".", "-")}-${stage}.md`;
}

/** The record as markdown, redacted (dialogs are already redacted; the rest may quote a model). */
export function renderHistory(record: HistoryRecord): string {
  const lines = [
    `# ${record.stage}: ${record.slug}`,
    "",
    `- **at**: ${record.at.toISOString()}`,
    `- **outcome**: ${record.outcome}`,
    ...Object.entries(record.models).map(([role, model]) => `- **${role}**: ${model}`),
    ...(record.spend ? [`- **spend**: ${spendLine(record.spend.usage)}`] : []),
  ];
  if (record.passes?.length) {
    lines.push("", "## Passes", "");
    record.passes.forEach((p, i) => lines.push(`${i + 1}. ${p.role} (${p.model}${p.sessionID ? `, ${p.sessionID}` : ""}): ${p.summary}`));
  }
  if (record.notes?.length) lines.push("", "## Notes", "", ...record.notes.map((n) => `- ${n}`));
  if (record.spend) lines.push("", ...renderSpendSection(record.spend));
  record.critiques?.forEach((c, i) => lines.push("", `## Critique ${i + 1}`, "", formatCritique(c)));
  for (const d of record.dialogs ?? []) {
    if (d.role === "review") continue; // the critique above is what matters from a reviewer
    lines.push("", `## Dialog: ${d.role} (${d.model}, ${d.sessionID})`, "", d.dialog);
  }
  return redact(lines.join("\n"));
}
