import { compareToBaseline } from "./check-baseline.ts";
import type { CheckResult } from "./checks.ts";

/**
 * A run's verdict: every check once more at its end. The baseline spares a task retries for a
 * failure it did not cause, but a run is *verified* only when every check passes at its end; a
 * check failing then, whether or not it failed before the run, makes the run *unverified*, and
 * nothing presents its work as done (no "open a pull request", no PR by --pr).
 */
export interface RunVerdict {
  verified: boolean;
  results: CheckResult[];
  /** The failing checks, each with whether it already failed before the run. */
  failing: Array<{ command: string; ended: string; before: boolean }>;
}

export function judgeRun(results: readonly CheckResult[], baseline: readonly CheckResult[] = []): RunVerdict {
  const failing = results
    .filter((r) => !r.passed)
    .map((r) => {
      const comparison = compareToBaseline(baseline, [r])[0];
      return {
        command: r.command,
        ended: r.timedOut ? "timed out" : `exit ${r.exitCode}`,
        before: comparison?.verdict === "pre_existing" || comparison?.verdict === "worse",
      };
    });
  return { verified: failing.length === 0, results: [...results], failing };
}

/** "verified (npm test, npm run lint passed)" or "unverified: npm test exit 1 (it failed before the run too)". */
export function describeVerdict(verdict: RunVerdict): string {
  if (verdict.verified) return `verified (${verdict.results.map((r) => r.command).join(", ")} passed at the end)`;
  return `unverified: ${verdict.failing.map((f) => `\`${f.command}\` ${f.ended}${f.before ? " (it failed before the run too)" : ""}`).join(", ")}`;
}

/** The failing checks by name, for a summary's first line: "npm test fails". */
export function failingHeadline(verdict: RunVerdict): string {
  const names = verdict.failing.map((f) => f.command);
  return `${names.join(", ")} ${names.length === 1 ? "fails" : "fail"}`;
}
