import { formatCost, formatTokenCount, formatUsage, type Budget, type Usage } from "../cost/index.ts";
import { summarizeTasks, type TaskList } from "../spec/index.ts";
import { describeVerdict, failingHeadline, ignoredLine, quarantineLine, type Quarantined, type RunVerdict } from "../workspace/index.ts";
import { sharedLines, type SharedChange } from "./attribution.ts";
import type { VerifyState } from "./commit-message.ts";
import { budgetStopLines, budgetWords, type BudgetStopReport } from "./cost.ts";
import { filesField } from "./evidence.ts";
import { formatDuration } from "./history.ts";
import type { StatusChange } from "./plan.ts";
import type { StepRecord, TaskResult } from "./types.ts";
import { cell, firstLine } from "../core/index.ts";

/** Live counts of one phase, for the tool's title. */
export interface PhaseCounts {
  group: number;
  total: number;
  done: number;
  running: number;
  failed: number;
}

/** "Phase 2: 3/5 done, 1 running, 0 failed" */
export function phaseTitle(c: PhaseCounts): string {
  return `Phase ${c.group}: ${c.done}/${c.total} done, ${c.running} running, ${c.failed} failed`;
}

/** The note of a phase the run's budget stopped before its commit. */
export const STOPPED_BY_BUDGET = "stopped: the budget was reached";

/** What happened to one phase in this run. */
export interface PhaseReport {
  group: number;
  results: TaskResult[];
  skipped: StatusChange[];
  steps: StepRecord[];
  verify?: VerifyState;
  /** Short sha of this run's commit. */
  commit?: string;
  /** Committed by an earlier run (short sha): nothing was done. */
  earlier?: string;
  /** Why the phase was not committed, or what stopped it. */
  note?: string;
  /** Paths left uncommitted: they had the user's changes before the run and a session changed them too. */
  kept?: string[];
  /** Paths git ignored when the run started and a session un-ignored: the user's, left out. */
  ignored?: string[];
  /** OpenCode configuration a session wrote, moved out of the tree (quarantineLine). */
  quarantined?: Quarantined;
  /** What the phase's model calls used in this run (tasks, gates, verification fixes, harvest). */
  usage?: Usage;
  /** Changes made while several of its tasks ran shell commands: listed here once, in no task's row. */
  shared?: SharedChange[];
}

export interface RunReport {
  slug: string;
  list: TaskList;
  phases: PhaseReport[];
  recovered: StatusChange[];
  docs?: { steps: StepRecord[]; commit?: string; note?: string; kept?: string[]; ignored?: string[] };
  cancelled: boolean;
  /** "checks: npm test (detected: package.json scripts.test)": what verification runs and where it came from. */
  checks?: string;
  /** "baseline: npm test: exit 1 (pre-existing, 2 failures)": the checks on the untouched tree. */
  baseline?: string;
  /** Every check once more at the end of the run; unset when none ran (no checks, cancelled, nothing to do). */
  verdict?: RunVerdict;
  /** An error that stopped the run (a failed commit). */
  error?: string;
  notes: string[];
  durationMs: number;
  /** What the run's model calls used, every session counted. */
  usage?: Usage;
  /** The budget in force (flags over limits). */
  budget?: Budget;
  /** Set when the budget stopped the run. */
  budgetStop?: BudgetStopReport;
  /** What comparable tasks cost here (the ledger's median) × the tasks left; unset without records. */
  estimate?: string;
}

/** A result's first line for the progress table, without markdown's heading, quote and list marks. */
function noteCell(text: string): string {
  return cell(firstLine(text.replace(/^[#>*\s-]+/gm, "")), 90);
}

/** A completed task's evidence as tasks.md records it: "commit 1a2b3c4 · files a.ts, b.ts · checks npm test exit 0". */
export function evidenceCell(extra: Readonly<Record<string, string>>): string {
  const parts = [
    extra.commit ? `commit ${extra.commit}` : "",
    extra.changed_files ? `files ${extra.changed_files}` : "",
    extra.no_changes ? `NO_CHANGES: ${extra.no_changes}` : "",
    extra.shared_changes ? `shared: ${extra.shared_changes}` : "",
    extra.checks ? `checks ${extra.checks}` : "",
  ].filter(Boolean);
  return parts.join(" · ").replace(/\|/g, "\\|");
}

function phaseLine(p: PhaseReport): string {
  if (p.earlier) {
    const again = p.results.length ? `; ${p.results.length} task(s) run again did not complete` : "";
    return `Phase ${p.group}: committed earlier (${p.earlier})${again}`;
  }
  const steps = p.steps.map((s) => `${s.name}: ${s.outcome}`);
  const end = p.commit ? `committed ${p.commit}` : `not committed${p.note ? ` (${p.note})` : ""}`;
  return `Phase ${p.group}: ${[...steps, end, ...(p.usage ? [formatUsage(p.usage)] : [])].join(" · ")}`;
}

/** The final markdown: the task table, one line per phase and its commit, failures with their reasons, the next step. */
export function renderReport(report: RunReport): string {
  const results = new Map(report.phases.flatMap((p) => p.results).map((r) => [r.id, r]));
  const skipped = new Map(report.phases.flatMap((p) => p.skipped).map((s) => [s.id, s]));
  const rows = report.list.tasks.map((t) => {
    const r = results.get(t.id);
    const note = r
      ? noteCell(r.status === "completed" ? r.summary : (r.error ?? ""))
      : skipped.has(t.id)
        ? noteCell(skipped.get(t.id)?.reason ?? "")
        : t.status === "completed"
          ? "(completed earlier)"
          : "";
    return `| ${t.parallel_group} | ${t.id} | ${t.status} | ${r ? r.attempts : "-"} | ${r ? formatDuration(r.durationMs) : "-"} | ${note} | ${t.status === "completed" ? evidenceCell(t.extra) : ""} | ${r?.usage ? spendCells(r.usage) : "- | -"} |`;
  });
  if (report.usage)
    rows.push(
      `| | **total** | | | ${formatDuration(report.durationMs)} | this run, with the phases' gates and the docs | | ${spendCells(report.usage)} |`,
    );
  const summary = summarizeTasks(report.list);
  const s = summary.byStatus;
  const out = [
    `## otto-spec execute: ${report.slug}${report.usage ? ` — ${formatUsage(report.usage)}` : ""}${report.verdict && !report.verdict.verified ? ` — unverified: ${failingHeadline(report.verdict)}` : ""}`,
    "",
    ...(report.budgetStop ? [...budgetStopLines(report.budgetStop), ""] : []),
    ...(report.estimate ? [`Before the run: ${report.estimate}`, ""] : report.budget ? [`Budget: ${budgetWords(report.budget)}`, ""] : []),
    "| phase | task | status | attempts | time | result | evidence | tokens | cost |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    ...report.phases.flatMap((p) => [
      phaseLine(p),
      ...sharedLines(p.shared ?? [], (files) => filesField(files, 20)).map((line) => `Phase ${p.group}: ${line}`),
    ]),
  ];
  if (report.checks) out.push(capitalise(report.checks));
  if (report.baseline)
    out.push(
      `${capitalise(report.baseline)}${/pre-existing/.test(report.baseline) ? " (a check that already failed fails the tasks only if it gets worse)" : ""}`,
    );
  if (report.verdict) out.push(`Verdict: ${describeVerdict(report.verdict)}`);
  if (report.docs)
    out.push(
      `Docs: ${[...report.docs.steps.map((st) => `${st.name}: ${st.outcome}`), report.docs.commit ? `committed ${report.docs.commit}` : (report.docs.note ?? "not committed")].join(" · ")}`,
    );
  out.push(
    "",
    `Progress: ${s.completed}/${summary.total} completed | ${s.running} running | ${s.pending} pending | ${s.failed} failed | ${s.skipped} skipped (${formatDuration(report.durationMs)})`,
  );

  const failed = [...results.values()].filter((r) => r.status === "failed");
  if (failed.length) {
    out.push("", "Failed:");
    for (const r of failed)
      out.push(
        `- ${r.id}: ${r.error ?? "failed"} (${r.attempts} attempt${r.attempts === 1 ? "" : "s"}; ${r.history.at(-1) ?? "no history"})`,
      );
  }
  if (skipped.size) {
    out.push("", "Skipped:");
    for (const sk of skipped.values()) out.push(`- ${sk.id}: ${sk.reason}`);
  }
  if (report.recovered.length) {
    out.push("", "Recovered from an earlier run:");
    for (const c of report.recovered) out.push(`- ${c.id} → ${c.status}: ${c.reason}`);
  }
  const warnings = [...report.phases.flatMap((p) => p.steps), ...(report.docs?.steps ?? [])].filter((st) => st.warning);
  if (warnings.length) {
    out.push("", "Warnings:");
    for (const w of warnings) out.push(`- ${w.name}: ${w.warning}`);
  }
  const kept = [...new Set([...report.phases.flatMap((p) => p.kept ?? []), ...(report.docs?.kept ?? [])])];
  if (kept.length) out.push("", keptLine(kept));
  const ignored = [...new Set([...report.phases.flatMap((p) => p.ignored ?? []), ...(report.docs?.ignored ?? [])])];
  if (ignored.length) out.push("", ignoredLine(ignored));
  for (const p of report.phases) if (p.quarantined) out.push("", quarantineLine(p.quarantined));
  for (const note of report.notes) out.push("", `Note: ${note}`);
  if (report.error) out.push("", `Error: ${report.error}`);
  out.push("", `Next step: ${nextStep(report)}`);
  return out.join("\n");
}

function nextStep(report: RunReport): string {
  const s = summarizeTasks(report.list).byStatus;
  if (report.budgetStop) return `the budget was reached; run ${report.budgetStop.resume} to resume (completed tasks are not run again)`;
  if (report.cancelled)
    return `the run was cancelled; run /otto-spec execute --spec ${report.slug} to resume (completed tasks are not run again)`;
  if (report.error) return `fix the error above, then run /otto-spec execute --spec ${report.slug} again`;
  if (s.failed > 0) {
    const first = report.list.tasks.find((t) => t.status === "failed");
    return `look at the failures above (history/ has each attempt's dialog), then /otto-spec task run --spec ${report.slug} --id ${first?.id ?? "<id>"}, or /otto-spec execute --spec ${report.slug}`;
  }
  if (s.pending > 0 || s.skipped > 0) return `/otto-spec execute --spec ${report.slug}`;
  if (report.verdict && !report.verdict.verified) {
    const before = report.verdict.failing.every((f) => f.before)
      ? " (it failed before the run too: the spec's work did not make it pass)"
      : "";
    return `every task is completed, but the run is unverified: ${failingHeadline(report.verdict)} at its end${before}. Fix it (add a task: /otto-spec task add --spec ${report.slug} <what must pass>, then /otto-spec execute --spec ${report.slug}); open no pull request until it passes`;
  }
  return "every task is completed; review the commits (git log) and open a pull request";
}

/** A row's tokens and cost cells: "3.62k | $0.0061". */
function spendCells(usage: Usage): string {
  return `${formatTokenCount(usage)} | ${formatCost(usage)}`;
}

/** The summary's line for files a commit left alone because they held the user's edits too. */
export function keptLine(kept: readonly string[]): string {
  const list = kept.slice(0, 20).join(", ") + (kept.length > 20 ? ` and ${kept.length - 20} more` : "");
  return `Left uncommitted: ${list}: ${kept.length === 1 ? "it" : "they"} had your changes before the run and a session changed ${kept.length === 1 ? "it" : "them"} too; review and commit by hand (git diff).`;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
