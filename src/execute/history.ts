import fs from "node:fs/promises";
import path from "node:path";
import { assertOttoPathSafe, redact } from "../core/index.ts";
import type { Usage } from "../cost/index.ts";
import { costLine } from "./cost.ts";
import type { StepRecord } from "./types.ts";

/** One task attempt, as history/run-NNN.md records it. */
export interface AttemptRecord {
  slug: string;
  taskId: string;
  title: string;
  attempt: number;
  maxAttempts: number;
  /** provider/model (agent). */
  model: string;
  sessionID?: string;
  startedAt: Date;
  durationMs: number;
  /** "completed", "failed: …", "timed out: …". */
  result: string;
  /** How the executor was briefed: "brief by …" or "static context (…)". */
  briefing: string;
  finalMessage: string;
  dialog: string;
  /** What the attempt showed for itself: "changed a.ts, b.ts", "NO_CHANGES: …", "no file changed". */
  evidence?: string;
  /** The task's acceptance check and how it ended: "`npm test -- a.test.ts` exit 0 (1.2s)". */
  acceptance?: string;
  /** What the attempt's model calls used (its session, closed and counted). */
  cost?: Usage;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${s}s`;
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}

export function renderAttempt(r: AttemptRecord, run: number, secrets: readonly string[] = []): string {
  const lines = [
    `# run-${pad(run)}: ${r.taskId} attempt ${r.attempt}/${r.maxAttempts}`,
    "",
    `- **spec**: ${r.slug}`,
    `- **task**: ${r.taskId}: ${r.title}`,
    `- **attempt**: ${r.attempt} of at most ${r.maxAttempts}`,
    `- **model**: ${r.model}`,
    `- **session**: ${r.sessionID ?? "(not created)"}`,
    `- **started**: ${r.startedAt.toISOString()}`,
    `- **duration**: ${formatDuration(r.durationMs)}`,
    `- **result**: ${r.result}`,
    `- **briefing**: ${r.briefing}`,
    ...(r.evidence ? [`- **evidence**: ${r.evidence}`] : []),
    ...(r.acceptance ? [`- **acceptance**: ${r.acceptance}`] : []),
    ...(r.cost ? [`- **cost**: ${costLine(r.cost)}`] : []),
    "",
    "## Final message",
    "",
    r.finalMessage.trim() || "_(none)_",
    "",
    "## Dialog",
    "",
    r.dialog.trim() || "_(none)_",
  ];
  return `${redact(lines.join("\n"), secrets)}\n`;
}

const pad = (n: number): string => String(n).padStart(3, "0");
const RUN_FILE = /^run-(\d+)\.md$/;

/**
 * Writes history/run-NNN.md with the next free number. Parallel tasks may pick the same number;
 * the exclusive create (`wx`) makes the loser take the next one, so no record overwrites another.
 */
export async function writeAttempt(historyDir: string, record: AttemptRecord, secrets: readonly string[] = []): Promise<string> {
  await assertOttoPathSafe(historyDir);
  await fs.mkdir(historyDir, { recursive: true });
  const used = (await fs.readdir(historyDir)).map((f) => Number(RUN_FILE.exec(f)?.[1] ?? 0));
  for (let n = Math.max(0, ...used) + 1; ; n++) {
    const file = path.join(historyDir, `run-${pad(n)}.md`);
    try {
      await fs.writeFile(file, renderAttempt(record, n, secrets), { flag: "wx" });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** history/<name>-<time>.md (`phase-2`, `docs`): the gates, verification and fixes of one step, with their dialogs. */
export async function writeStepRecord(
  historyDir: string,
  record: {
    slug: string;
    name: string;
    heading: string;
    at: Date;
    steps: readonly StepRecord[];
    evidence?: readonly string[];
    usage?: Usage;
  },
  secrets: readonly string[] = [],
): Promise<string> {
  await assertOttoPathSafe(historyDir);
  await fs.mkdir(historyDir, { recursive: true });
  const lines = [
    `# ${record.heading} of ${record.slug}`,
    "",
    `- **at**: ${record.at.toISOString()}`,
    ...(record.usage ? [`- **cost**: ${costLine(record.usage)}`] : []),
    "",
  ];
  for (const step of record.steps) {
    lines.push(`- **${step.name}**: ${step.outcome}${step.model ? ` (${step.model}${step.sessionID ? `, ${step.sessionID}` : ""})` : ""}`);
    if (step.warning) lines.push(`  - warning: ${step.warning}`);
  }
  if (record.evidence?.length) lines.push("", "## Evidence", "", ...record.evidence.map((e) => `- ${e}`));
  for (const step of record.steps) if (step.dialog) lines.push("", `## Dialog: ${step.name}`, "", step.dialog.trim());
  const stamp = record.at.toISOString().replace(/[:.]/g, "-");
  const file = path.join(historyDir, `${record.name}-${stamp}.md`);
  await fs.writeFile(file, `${redact(lines.join("\n"), secrets)}\n`);
  return file;
}
