import type { CheckResult, TreeSnapshot } from "../workspace/index.ts";
import { diffSnapshots } from "../workspace/index.ts";
import { sharedLines, type SharedChange } from "./attribution.ts";

/*
 * What makes a task done besides the executor's word: its session changed files, or it said why
 * nothing had to change (`NO_CHANGES: <reason>`). The evidence (changed files, checks, commit) is
 * written next to the task in tasks.md and shown in the summary. Pure functions; run-task.ts and
 * run-phase.ts take the snapshots and write the fields.
 */

/** The note of an attempt that claimed success without touching anything. */
export const NO_EVIDENCE = "the session changed no file and gave no NO_CHANGES reason";

/** How many changed paths the `changed_files` field names before "and N more". */
export const FILES_SHOWN = 10;

const NO_CHANGES = /^NO_CHANGES:\s*(.*)$/;

/**
 * The executor's reason for changing nothing: a line `NO_CHANGES: <reason>` anywhere in its final
 * message (the last one wins; markdown emphasis around it is ignored). A line without a reason
 * does not count: the reason is the evidence.
 */
export function noChangesReason(finalMessage: string): string | undefined {
  const lines = finalMessage.split(/\r?\n/).map((l) => l.trim().replace(/^[*_`>\s-]+|[*_`\s]+$/g, ""));
  for (const line of lines.reverse()) {
    const reason = NO_CHANGES.exec(line)?.[1]?.trim();
    if (reason) return reason;
  }
  return undefined;
}

/**
 * The paths that changed between an attempt's own snapshots, without otto's state under
 * `exclude` (tasks.md statuses and history files of parallel tasks are written meanwhile). With
 * parallel tasks in one tree this is "what changed while the task ran", theirs included.
 */
export function changedDuring(before: TreeSnapshot, after: TreeSnapshot, exclude: readonly string[]): string[] {
  const changes = diffSnapshots(before, after);
  return [...changes.paths, ...changes.kept].filter((p) => !exclude.some((dir) => p.startsWith(dir))).sort();
}

/** "a.ts, b.ts and 3 more" for the `changed_files` field. */
export function filesField(files: readonly string[], max = FILES_SHOWN): string {
  const shown = files.slice(0, max).join(", ");
  return files.length > max ? `${shown} and ${files.length - max} more` : shown;
}

/**
 * "npm test exit 0, npm run lint exit 0" for the `checks` field: the last verification round, a
 * failure the baseline already had marked as such. "none" when no check ran.
 */
export function checksField(results: readonly CheckResult[], blocking: readonly CheckResult[] = []): string {
  if (results.length === 0) return "none";
  return results
    .map(
      (r) =>
        `${r.command} ${r.timedOut ? "timed out" : `exit ${r.exitCode}`}${!r.passed && !blocking.includes(r) ? " (pre-existing, not worse)" : ""}`,
    )
    .join(", ");
}

/**
 * What an attempt showed for itself: the files it changed, or its NO_CHANGES reason. In a parallel
 * phase, also the changes made while it and other tasks ran shell commands (attribution.ts): they
 * count as its evidence, but the phase's record lists them, not the task's row.
 */
export interface AttemptEvidence {
  files: string[];
  noChanges?: string;
  /** Changes shared with other tasks that it took part in. */
  shared?: SharedChange[];
}

/**
 * The attempt's verdict on evidence alone: files changed, else shared changes it took part in,
 * else a NO_CHANGES reason, else not done.
 */
export function judgeEvidence(
  files: readonly string[],
  finalMessage: string,
  shared: readonly SharedChange[] = [],
): { ok: true; evidence: AttemptEvidence } | { ok: false; reason: string } {
  const withShared = shared.length > 0 ? { shared: [...shared] } : {};
  if (files.length > 0) return { ok: true, evidence: { files: [...files], ...withShared } };
  if (shared.length > 0) return { ok: true, evidence: { files: [], ...withShared } };
  const reason = noChangesReason(finalMessage);
  return reason ? { ok: true, evidence: { files: [], noChanges: reason } } : { ok: false, reason: NO_EVIDENCE };
}

/** The tasks.md fields of a completed task's attempt. */
export function attemptFields(evidence: AttemptEvidence): Record<string, string> {
  const shared: Record<string, string> = evidence.shared?.length ? { shared_changes: sharedField(evidence.shared) } : {};
  if (evidence.files.length > 0) return { changed_files: filesField(evidence.files), ...shared };
  return evidence.shared?.length ? shared : { no_changes: evidence.noChanges ?? "" };
}

/** "2 files changed while tasks task-001, task-002 ran (listed in the phase's record)": a count, never the shared paths themselves. */
export function sharedField(shared: readonly SharedChange[]): string {
  const tasks = [...new Set(shared.flatMap((s) => s.tasks))].sort();
  return `${shared.length} file${shared.length === 1 ? "" : "s"} changed while tasks ${tasks.join(", ")} ran (listed in the phase's record)`;
}

/** An attempt's history line: "changed a.ts", "NO_CHANGES: …", with the shared changes it took part in. */
export function attemptEvidenceLine(
  files: readonly string[],
  verdict: { ok: true; evidence: AttemptEvidence } | { ok: false },
  shared: readonly SharedChange[] = [],
): string {
  const own =
    files.length > 0
      ? `changed ${filesField(files, 50)}`
      : verdict.ok && verdict.evidence.noChanges !== undefined
        ? `NO_CHANGES: ${verdict.evidence.noChanges}`
        : shared.length > 0
          ? "no file of its own"
          : "no file changed";
  return [own, ...sharedLines(shared, (f) => filesField(f, 50))].join("; ");
}

/** "task-001: changed a.ts, b.ts; checks npm test exit 0" for the phase's history record. */
export function evidenceLine(r: {
  id: string;
  files?: readonly string[];
  noChanges?: string;
  shared?: readonly SharedChange[];
  checks?: string;
}): string {
  const what = r.files?.length
    ? `changed ${filesField(r.files)}`
    : r.noChanges !== undefined
      ? `NO_CHANGES: ${r.noChanges}`
      : r.shared?.length
        ? "changes shared with other tasks (below)"
        : "no evidence recorded";
  return `${r.id}: ${what}${r.checks ? `; checks ${r.checks}` : ""}`;
}
