import type { ReviewPass } from "../../review/index.ts";
import type { Question } from "../questions/schema.ts";

/** What a stage did, for its markdown summary (pure). */
export interface StageReport {
  heading: string;
  /** Repository-relative paths written, with a note each, e.g. ["design.md (refined)"]. */
  written: string[];
  /** Extra result lines: "Generated 6 tasks in 2 parallel groups", restored tasks … */
  lines?: string[];
  passes?: readonly ReviewPass[];
  questions?: { added: readonly Question[]; open: number; file: string; command: string };
  warnings?: readonly string[];
  /** Model fallback notes and the like. */
  notes?: readonly string[];
  history?: string;
  next: string;
}

export function renderStageReport(report: StageReport): string {
  const out = [`## ${report.heading}`, ""];
  for (const file of report.written) out.push(`Written: ${file}`);
  if (report.lines?.length) out.push("", ...report.lines);
  if (report.passes?.length) {
    out.push("", "Review:");
    report.passes.forEach((p, i) => out.push(`  pass ${i + 1}: ${p.role} (${p.model}): ${p.summary}`));
  }
  const q = report.questions;
  if (q && (q.added.length > 0 || q.open > 0)) {
    out.push("");
    if (q.added.length > 0) out.push(`Questions raised: ${q.added.map((x) => `Q${x.number} (${x.title})`).join(", ")}, added to ${q.file}.`);
    if (q.open > 0) out.push(`Open questions: ${q.open}. They never block the pipeline; to settle them: ${q.command}`);
  }
  if (report.warnings?.length) out.push("", ...report.warnings.map((w) => `Warning: ${w}`));
  if (report.notes?.length) out.push("", ...report.notes.map((n) => `Note: ${n}`));
  if (report.history) out.push("", `History: ${report.history}`);
  out.push("", `Next step: ${report.next}`);
  return out.join("\n");
}

/** A markdown table; cells have `|` escaped and newlines flattened. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
  return [
    `| ${header.map(cell).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}
