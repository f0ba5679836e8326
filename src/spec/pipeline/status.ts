import fs from "node:fs/promises";
import path from "node:path";
import { readTextIfExists, type Env } from "../../core/index.ts";
import { addUsage, formatUsage, ledgerFile, readLedger, sumUsage, ZERO_USAGE, type LedgerEntry, type Usage } from "../../cost/index.ts";
import { readArtifacts, specPaths, type Artifact } from "../layout.ts";
import { parseQuestions } from "../questions/parse-questions.ts";
import { parseTasks } from "../tasks/parse-tasks.ts";
import { summarizeTasks } from "../tasks/summarize-tasks.ts";
import type { VerbResult } from "./document-stage.ts";
import { nextCommand, progressLine } from "./listing.ts";
import { table } from "./render-output.ts";
import { parseSpendSection, spendCells } from "./spend.ts";
import { resolveTarget } from "./target.ts";

/** One stage run as its history record tells it. */
export interface StageRecord {
  /** The record's stage: add, requirements, research, design, task-generate, task-add, questions, run. */
  stage: string;
  at: string;
  outcome: string;
  /** Undefined for a record without a `## Spend` table (written before stages were accounted). */
  usage?: Usage;
}

/** The pipeline's rows and the history records each one sums. */
const ROWS: ReadonlyArray<{ row: string; records: readonly string[]; artifact?: Artifact }> = [
  { row: "requirements", records: ["add", "requirements"], artifact: "requirements" },
  { row: "research", records: ["research"], artifact: "research" },
  { row: "design", records: ["design"], artifact: "design" },
  { row: "tasks", records: ["task-generate", "task-add"], artifact: "tasks" },
  { row: "questions", records: ["questions"] },
  { row: "run (ad hoc)", records: ["run"] },
];

const KNOWN = new Set(ROWS.flatMap((r) => r.records));

/** A history record's stage, time, outcome and spend; undefined for a file that is no stage record of this spec (pure). */
export function parseStageRecord(text: string, slug: string): StageRecord | undefined {
  const header = /^# ([a-z][a-z-]*): (.+)$/m.exec(text.split("\n", 1)[0] ?? "");
  if (!header || header[2]?.trim() !== slug || !KNOWN.has(header[1] ?? "")) return undefined;
  const field = (name: string) => new RegExp(`^- \\*\\*${name}\\*\\*: (.*)$`, "m").exec(text)?.[1]?.trim() ?? "";
  const spend = parseSpendSection(text);
  return { stage: header[1] ?? "", at: field("at"), outcome: field("outcome"), ...(spend ? { usage: spend.usage } : {}) };
}

/** Every stage record under the spec's history/ folder, oldest first. */
export async function readStageRecords(historyDir: string, slug: string): Promise<StageRecord[]> {
  let names: string[];
  try {
    names = (await fs.readdir(historyDir)).filter((n) => n.endsWith(".md")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const out: StageRecord[] = [];
  for (const name of names) {
    const text = await readTextIfExists(path.join(historyDir, name));
    const record = text === undefined ? undefined : parseStageRecord(text, slug);
    if (record) out.push(record);
  }
  return out;
}

/** One run of a flow other than a stage (execute, task run, build) as the ledger has it. */
export interface FlowRun {
  /** The flow's outermost account, e.g. "execute demo". */
  name: string;
  /** Its start (the `run` label). */
  run: string;
  usage: Usage;
}

/**
 * The spec's runs of other flows from the ledger (pure): the entries of this repository and spec
 * that no stage account charged (stages are on record in history/), summed per flow and run.
 */
export function flowRuns(entries: readonly LedgerEntry[], repo: string, slug: string): FlowRun[] {
  const runs = new Map<string, FlowRun>();
  for (const entry of entries) {
    if (entry.labels?.spec !== slug || entry.labels.repo !== repo) continue;
    if (entry.path.some((name) => name.startsWith("stage "))) continue;
    const name = entry.path[0] ?? "other";
    const run = entry.labels.run ?? "";
    const key = `${name}\u0000${run}`;
    const known = runs.get(key);
    runs.set(key, { name, run, usage: addUsage(known?.usage ?? ZERO_USAGE, entry.usage) });
  }
  return [...runs.values()].sort((a, b) => a.run.localeCompare(b.run) || a.name.localeCompare(b.name));
}

export interface StatusInput {
  slug: string;
  present: ReadonlySet<Artifact>;
  tasks?: string;
  questions?: string;
  records: readonly StageRecord[];
  flows: readonly FlowRun[];
}

function cells(usage: Usage | undefined): [string, string] {
  return usage ? spendCells(usage) : ["-", "-"];
}

/** `/otto-spec status` (pure): the stages with their state and spend, the tasks, the other runs, the total first. */
export function renderStatus(input: StatusInput): VerbResult {
  const tasks = input.tasks === undefined ? undefined : summarizeTasks(parseTasks(input.tasks).tasks);
  const questions = input.questions === undefined ? [] : parseQuestions(input.questions).questions.questions;
  const open = questions.filter((q) => q.status === "unanswered").length;
  const unknown = input.records.filter((r) => !r.usage).length;
  const stateOf = (row: (typeof ROWS)[number]): string => {
    if (row.artifact === "tasks" && tasks)
      return `${tasks.total} task${tasks.total === 1 ? "" : "s"}: ${tasks.byStatus.completed} done, ${tasks.total - tasks.byStatus.completed} left`;
    if (row.artifact) return input.present.has(row.artifact) ? "written" : "not written";
    if (row.row === "questions") return questions.length ? `${open} open of ${questions.length}` : "none";
    return "-";
  };
  const rows = ROWS.map((row) => {
    const records = input.records.filter((r) => row.records.includes(r.stage));
    const last = records.at(-1);
    const spent = records.some((r) => r.usage) ? sumUsage(records.flatMap((r) => (r.usage ? [r.usage] : []))) : undefined;
    return [
      row.row,
      stateOf(row),
      String(records.length),
      last ? `${last.at.slice(0, 16).replace("T", " ")} ${last.outcome}` : "-",
      ...cells(spent),
    ];
  });
  const stageTotal = sumUsage(input.records.flatMap((r) => (r.usage ? [r.usage] : [])));
  const flowTotal = sumUsage(input.flows.map((f) => f.usage));
  const total = addUsage(stageTotal, flowTotal);
  const out = [
    `## Spec ${input.slug}: ${formatUsage(total)} spent`,
    "",
    table(["stage", "state", "runs", "last run", "tokens", "cost"], rows),
  ];
  if (tasks) out.push("", `Tasks: ${progressLine(tasks)} (${tasks.total - tasks.byStatus.completed} left)`);
  out.push("", "### Execute and other runs (this machine's ledger)", "");
  if (input.flows.length === 0) out.push("None on record.");
  else
    out.push(
      table(
        ["started", "run", "tokens", "cost"],
        input.flows.map((f) => [f.run.slice(0, 19).replace("T", " ") || "-", f.name, ...spendCells(f.usage)]),
      ),
    );
  out.push("", `Spent: stages ${formatUsage(stageTotal)}, other runs ${formatUsage(flowTotal)}, in all ${formatUsage(total)}.`);
  if (unknown > 0) out.push(`Note: ${unknown} stage run(s) on record without their spend (recorded before otto counted it).`);
  out.push(
    "",
    `Next step: ${nextCommand({ slug: input.slug, artifacts: Object.fromEntries(["requirements", "research", "design", "tasks", "questions"].map((a) => [a, input.present.has(a as Artifact)])) as Record<Artifact, boolean> })}`,
  );
  return { title: `otto-spec: ${input.slug} status (${formatUsage(total)})`, output: out.join("\n") };
}

/** `/otto-spec status [slug]`: reads the spec's files, its history records and the ledger. */
export async function statusVerb(repoRoot: string, env: Env, flag?: string): Promise<VerbResult> {
  const { slug } = resolveTarget(repoRoot, flag, "run");
  const paths = specPaths(repoRoot, slug);
  const [tasks, questions, records, ledger] = await Promise.all([
    readTextIfExists(paths.tasks),
    readTextIfExists(paths.questions),
    readStageRecords(paths.history, slug),
    readLedger(ledgerFile(env)),
  ]);
  return renderStatus({
    slug,
    present: readArtifacts(repoRoot, slug),
    ...(tasks !== undefined ? { tasks } : {}),
    ...(questions !== undefined ? { questions } : {}),
    records,
    flows: flowRuns(ledger, repoRoot, slug),
  });
}
