import { createHash } from "node:crypto";
import { cleanLine } from "./trim-log.ts";

/*
 * A failure's fingerprint (pure): the lines of a CI log that name what failed (failing tests,
 * error messages), normalised so the same failure on another commit, runner or day reads the
 * same: no timestamps, durations, paths of the runner's checkout, hex ids or numbers. Two runs
 * with the same fingerprint failed the same way; a flake ledger and the default branch's runs are
 * compared by it (docs/pr-fix.md, "Is it the PR's failure?").
 */

/** Lines that name a failure, across the usual runners (jest/vitest, mocha, pytest, go test, cargo, JUnit, dotnet, rspec). */
const FAILURE_LINE =
  /\bFAIL(?:ED)?\b|✕|✗|✖|●|\b(?:Assertion)?Error\b|\bexpected\b.*\b(?:received|got|but|to)\b|--- FAIL:|^\s*\d+\) |\bpanicked at\b|\bTraceback\b|\bException\b|##\[error\]|\bnot ok \d+/i;

/** Lines every failure shares: they say that something failed, not what. */
const GENERIC = [
  /Process completed with exit code/i,
  /^##\[error\]\s*$/,
  /npm ERR! (?:code|errno|Lifecycle|A complete log|This is probably|Failed at|Test failed)/i,
  /\bCommand failed\b/i,
  /^\s*(?:Tests?|Test Suites|Test Files|Suites|Snapshots):\s/i,
  /^\s*\d+ (?:failing|passing|pending|failed|passed)\b/i,
  /^error Command failed/i,
  /^Error: Process completed/i,
  /^FAIL\s*$/,
  /exited with code/i,
  /Bash exited with code/i,
  /^\s*at\s/,
];

/** The lines of one failure, at most this many: the first ones name the root failure. */
const MAX_LINES = 12;

/** One line, as the fingerprint reads it: runner paths, ids, numbers and durations made alike. */
export function normaliseLine(line: string): string {
  return (
    cleanLine(line)
      // Absolute paths of a checkout differ by runner (/home/runner/work/app/app/, D:\a\1\s\).
      .replace(/(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+)+[\\/]/g, "")
      .replace(/\b[0-9a-f]{7,64}\b/gi, "<hex>")
      .replace(/\b\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?\b/g, "<time>")
      .replace(/\(\s*\d+(?:\.\d+)?\s*m?s\s*\)|\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds|minutes)\b/g, "<duration>")
      .replace(/\d+/g, "N")
      .replace(/\s+/g, " ")
      .trim()
  );
}

export interface Fingerprint {
  /** sha256 of the normalised lines, shortened (16 hex digits). */
  id: string;
  /** The normalised lines it was made of, for people (the ledger and notifications show them). */
  lines: string[];
}

/** The failure lines of a log, normalised, in order, without repeats; empty when none names a failure. */
export function failureLines(log: string): string[] {
  const out: string[] = [];
  for (const raw of log.split("\n")) {
    const line = cleanLine(raw);
    if (!FAILURE_LINE.test(line) || GENERIC.some((re) => re.test(line))) continue;
    const normal = normaliseLine(line);
    if (normal.length < 4 || out.includes(normal)) continue;
    out.push(normal);
    if (out.length >= MAX_LINES) break;
  }
  return out;
}

/** The fingerprint of a failed check's log, or undefined when no line names what failed (only "exit code 1"). */
export function fingerprintLog(log: string): Fingerprint | undefined {
  const lines = failureLines(log);
  if (lines.length === 0) return undefined;
  return { id: createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16), lines };
}
