import type { CheckResult } from "../workspace/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import type { Reminder } from "./decide.ts";
import type { TaskSource, TaskView } from "./task-source.ts";

/** The marker the builder writes, on a line of its own, to confirm the work (accepted only when the checks pass). */
export const VERIFIED = "VERIFIED";

/** The reply's last non-empty line is exactly VERIFIED (markdown emphasis allowed). */
export function claimsVerified(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim().replace(/^[*_`]+|[*_`]+$/g, ""))
    .filter((l) => l !== "");
  return lines[lines.length - 1] === VERIFIED;
}

const PROGRESS_WORD = /\b(?:done|completed|(?:is|are|now) complete|finished|implemented|fixed|marked)\b/gi;
/** "not done", "haven't finished", "nothing implemented", "I will mark it done": no claim. */
const NEGATION = /(?:\b(?:not|never|nothing|no|none|will)|n't)\W+(?:\w+\W+){0,2}$/i;

/**
 * The reply says work got done ("Finished task-002", "Implemented the route", "Done."), unless
 * negated. Deliberately loose: a claim read where there is none only costs a reminder.
 */
export function claimsProgress(text: string): boolean {
  for (const match of text.matchAll(PROGRESS_WORD)) {
    if (!NEGATION.test(text.slice(Math.max(0, match.index - 30), match.index))) return true;
  }
  return false;
}

/** "Tasks remaining 3/7" */
export function progressText(view: Pick<TaskView, "total" | "done">): string {
  return `Tasks remaining ${view.total - view.done}/${view.total}`;
}

export function nextText(view: TaskView): string {
  return view.next ? `${view.next.id} ${view.next.title}`.trim() : "none (every task is marked done)";
}

const bullets = (commands: readonly string[]): string | undefined =>
  commands.length ? commands.map((c) => `- \`${c}\``).join("\n") : undefined;

export function startPrompt(source: TaskSource, view: TaskView, rel: (p: string) => string, verify: readonly string[]): string {
  const label = source.target.kind === "spec" ? `the otto spec '${source.target.name}'` : `the OpenSpec change '${source.target.name}'`;
  return renderPrompt("build-start", {
    target: label,
    tasks_file: rel(source.file),
    tasks_format: source.format,
    doc_dir: rel(source.dir),
    progress: progressText(view),
    next_task: nextText(view),
    verify_commands: bullets(verify),
  });
}

export const REMINDERS: Record<Reminder, string> = {
  files_changed:
    "Reminder: files changed in your last turn but the tasks file did not. Mark every task you finished as done in the tasks file now; otto only counts what the file says.",
  claimed_progress:
    "Reminder: your last answer says work was done, but the tasks file did not change. Mark every task you finished as done in the tasks file now; otto only counts what the file says.",
};

export function continuePrompt(source: TaskSource, view: TaskView, rel: (p: string) => string, remind?: Reminder): string {
  return renderPrompt("build-continue", {
    progress: progressText(view),
    next_task: nextText(view),
    tasks_file: rel(source.file),
    reminder: remind ? REMINDERS[remind] : undefined,
  });
}

export function fixPrompt(source: TaskSource, failed: readonly CheckResult[], rel: (p: string) => string): string {
  const failures = failed
    .map((r) =>
      [
        `### \`${r.command}\` ${r.timedOut ? "timed out" : `failed (exit ${r.exitCode})`}`,
        "",
        "```",
        r.output.replace(/```/g, "ʼʼʼ") || "(no output)",
        "```",
      ].join("\n"),
    )
    .join("\n\n");
  return renderPrompt("build-fix", { failures, tasks_file: rel(source.file) });
}

/** `preExisting`: the checks failing now that failed before the build too, not worse (verdict.ts). */
export function verifyPrompt(
  source: TaskSource,
  verify: readonly string[],
  rel: (p: string) => string,
  preExisting: readonly string[] = [],
): string {
  return renderPrompt("build-verify", {
    tasks_file: rel(source.file),
    verify_commands: bullets(verify),
    pre_existing: preExisting.length ? preExisting.map((l) => `- ${l}`).join("\n") : undefined,
  });
}
