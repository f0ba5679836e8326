import type { OttoError } from "../../core/index.ts";
import { formatUsage, type Usage } from "../../cost/index.ts";
import type { Question } from "../questions/schema.ts";
import type { VerbResult } from "./document-stage.ts";
import { spendCells, spendLine, type PassSpend, type StageSpend } from "./spend.ts";
import { cell } from "../../core/index.ts";

/** A row of a stage's summary table: a pass, what came of it and what it spent. */
export interface ReportPass {
  label: string;
  model: string;
  result: string;
  usage?: Usage;
}

/** The table rows of a stage's passes: their spend, with the results (summaries) in the same order. */
export function passRows(passes: readonly PassSpend[], results: readonly string[]): ReportPass[] {
  return passes.map((p, i) => ({ label: p.label, model: p.model, result: results[i] ?? "", usage: p.usage }));
}

/** What a stage did, for its markdown summary (pure). */
export interface StageReport {
  heading: string;
  /** Repository-relative paths written, with a note each, e.g. ["design.md (refined)"]. */
  written: string[];
  /** Extra result lines: "Generated 6 tasks in 2 parallel groups", restored tasks … */
  lines?: string[];
  /** The passes (write, review, refine …) with their spend: the summary table. */
  passes?: readonly ReportPass[];
  /** What the stage spent in all: the heading names it and the table ends with it. */
  total?: Usage;
  questions?: { added: readonly Question[]; open: number; file: string; command: string };
  warnings?: readonly string[];
  /** Model fallback notes and the like. */
  notes?: readonly string[];
  history?: string;
  next: string;
}

export function renderStageReport(report: StageReport): string {
  const out = [`## ${report.heading}${report.total ? ` (${formatUsage(report.total)})` : ""}`, ""];
  for (const file of report.written) out.push(`Written: ${file}`);
  if (report.lines?.length) out.push("", ...report.lines);
  if (report.passes?.length) out.push("", passTable(report.passes, report.total));
  else if (report.total) out.push("", `Spent: ${spendLine(report.total)}`);
  const q = report.questions;
  if (q && (q.added.length > 0 || q.open > 0)) {
    out.push("");
    if (q.added.length > 0)
      out.push(`Questions raised: ${q.added.map((x) => `Q${x.number} (${x.title})`).join(", ")}, added to ${q.file}.`);
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
  return [
    `| ${header.map((s) => cell(s)).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map((s) => cell(s)).join(" | ")} |`),
  ].join("\n");
}

/** The passes with their tokens and cost, and a total row. */
export function passTable(passes: readonly ReportPass[], total?: Usage): string {
  const rows = passes.map((p, i) => [
    String(i + 1),
    p.label,
    p.model || "-",
    p.result || "-",
    ...(p.usage ? spendCells(p.usage) : ["-", "-"]),
  ]);
  if (total) rows.push(["", "total", "", `${total.requests} model call${total.requests === 1 ? "" : "s"}`, ...spendCells(total)]);
  return table(["#", "pass", "model", "result", "tokens", "cost"], rows);
}

export interface StopReport {
  /** "research", "task generate" … */
  stage: string;
  slug: string;
  /** The budget stop (its message: "Budget reached: spent $1.02 of $1.00 (stage research)."). */
  stop: OttoError;
  spend: StageSpend;
  undone: readonly string[];
  notes?: readonly string[];
  /** What came of each pass (default: done, and the last one stopped). */
  results?: readonly string[];
  history?: string;
}

/** A stage stopped by its budget: spent and limit first, what was left undone, the passes' spend, how to go on. */
export function renderStopReport(report: StopReport): VerbResult {
  const { spend } = report;
  const rows = spend.passes.map((p, i) => ({
    label: p.label,
    model: p.model,
    result: report.results?.[i] ?? (i === spend.passes.length - 1 ? "stopped by the budget" : "done"),
    usage: p.usage,
  }));
  const out = [
    `## ${report.stage} stopped for ${report.slug}: budget reached (${formatUsage(spend.usage)})`,
    "",
    report.stop.message,
    "",
    ...report.undone.map((u) => `Not done: ${u}`),
    ...(report.notes?.length ? ["", ...report.notes] : []),
  ];
  if (rows.length > 0) out.push("", passTable(rows, spend.usage));
  if (report.history) out.push("", `History: ${report.history}`);
  out.push("", `Next step: ${report.stop.fix ?? "raise the budget and run the stage again"}`);
  return { title: `otto-spec: ${report.stage} stopped, budget reached (${formatUsage(spend.usage)})`, output: out.join("\n") };
}
