/*
 * Whether two failed attempts failed the same way. A retry that meets the failure its predecessor
 * met is a retry no further retry is likely to fix (the executor was already shown that failure),
 * so the task stops there instead of paying for a fresh session's whole context again
 * (docs/decisions.md, "Loops that end"). Pure: run-task.ts classifies each attempt's failure,
 * this module says what makes two of them the same.
 */

/** One failed attempt, as otto observed it. */
export type Failure =
  /** The session hit spec.task_timeout: any two timeouts are the same failure. */
  | { kind: "timeout" }
  /** The session ended with an error (the model call failed, otto stopped it, …). */
  | { kind: "error"; code?: string; message: string }
  /** The executor's own `TASK_FAILED: <reason>`. */
  | { kind: "task_failed"; reason: string }
  /** The session claimed success without evidence (evidence.ts NO_EVIDENCE). */
  | { kind: "no_evidence" }
  /** A check otto ran after the attempt failed: its command, how it ended, the end of its output. */
  | { kind: "check"; command: string; exitCode: number; timedOut?: boolean; output?: string };

/** How much of a failed check's output counts: its end, where test runners print the verdict. */
export const OUTPUT_LINES = 20;

/**
 * The parts of a failure that say what went wrong, without what changes from one run to the
 * next. Two attempts whose fingerprints are equal failed the same way.
 */
export function failureFingerprint(failure: Failure): string {
  switch (failure.kind) {
    case "timeout":
    case "no_evidence":
      return failure.kind;
    case "error":
      return `error:${failure.code ?? ""}:${normalizeFailureText(failure.message)}`;
    case "task_failed":
      return `task_failed:${normalizeFailureText(failure.reason)}`;
    case "check": {
      const tail = (failure.output ?? "").trimEnd().split(/\r?\n/).slice(-OUTPUT_LINES).join("\n");
      const end = failure.timedOut ? "timed out" : `exit ${failure.exitCode}`;
      return `check:${failure.command.trim().replace(/\s+/g, " ")}:${end}:${normalizeFailureText(tail)}`;
    }
  }
}

/** The failures are the same (see failureFingerprint). */
export function sameFailure(a: Failure | undefined, b: Failure | undefined): boolean {
  return a !== undefined && b !== undefined && failureFingerprint(a) === failureFingerprint(b);
}

// The volatile parts of an error text, in the order they are replaced: the wider patterns
// (a timestamp holds numbers, a temp path holds ids) before the narrower ones.
const VOLATILE: Array<[RegExp, string]> = [
  // ANSI escape sequences (colours, cursor moves) that a terminal-minded tool prints.
  // eslint-disable-next-line no-control-regex
  [/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g, ""],
  // ISO dates and times, clock times.
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/gi, "<time>"],
  [/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, "<time>"],
  // Temporary files and folders (Linux, macOS, Windows).
  [/(?:\/private)?\/(?:tmp|var\/folders|var\/tmp)\/[^\s'"`),;]*/g, "<tmp>"],
  [/[A-Za-z]:\\[^\s'"`]*\\Temp\\[^\s'"`),;]*/gi, "<tmp>"],
  // OpenCode's ids (ses_…, msg_…, prt_…), tool-call ids, UUIDs.
  [/\b(?:ses|msg|prt|call|toolu|per)_[A-Za-z0-9]+/g, "<id>"],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>"],
  // Hashes: commit ids and digests (7+ hex digits, at least one a digit so words stay).
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, "<hash>"],
  // Durations: "12s", "1.5 ms", "300ms", "2 minutes".
  [/\b\d+(?:\.\d+)?\s?(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b/gi, "<duration>"],
  // Long numbers are pids, ports, byte counts, epoch times; short ones (exit codes, counts, line
  // numbers) stay, since they tell one failure from another.
  [/\b\d{5,}\b/g, "<n>"],
];

/** An error text without its volatile parts (see VOLATILE), in lower case, its whitespace collapsed. */
export function normalizeFailureText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of VOLATILE) out = out.replace(pattern, replacement);
  return out.replace(/\s+/g, " ").trim().toLowerCase();
}
