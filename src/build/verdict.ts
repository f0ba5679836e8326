/**
 * A build's checks against its baseline (spec.verify once on the tree as the build found it), the
 * rule execute follows (docs/execute.md "Completed, verified, unverified"): a failure that was
 * there before the build and is not worse does not send the builder to fix it, but the build is
 * verified only when every check passes at its end.
 */
import { compareToBaseline, failingHeadline, isBlocking, judgeRun, type CheckResult, type RunVerdict } from "../workspace/index.ts";

/** The failing checks the build caused: they passed before it, or fail more than they did (compareToBaseline). */
export function blockingChecks(baseline: readonly CheckResult[], results: readonly CheckResult[]): CheckResult[] {
  const blocking = new Set(
    compareToBaseline(baseline, results)
      .filter(isBlocking)
      .map((c) => c.command),
  );
  return results.filter((r) => !r.passed && blocking.has(r.command));
}

/** What the loop decides on (decide.ts Observation.checks). */
export function judgeChecks(baseline: readonly CheckResult[], results: readonly CheckResult[]): { passed: boolean; blocking: boolean } {
  return { passed: results.every((r) => r.passed), blocking: blockingChecks(baseline, results).length > 0 };
}

/** The failing checks that were there before the build, not worse: the confirm prompt names them. */
export function preExistingLines(baseline: readonly CheckResult[], results: readonly CheckResult[]): string[] {
  return compareToBaseline(baseline, results)
    .filter((c) => c.verdict === "pre_existing")
    .map((c) => c.line.replace(/before the work/g, "before the build"));
}

/** The build's verdict from the checks run on its final tree; undefined when no check ran (nothing verified it). */
export function buildVerdict(results: readonly CheckResult[], baseline: readonly CheckResult[]): RunVerdict | undefined {
  return results.length > 0 ? judgeRun(results, baseline) : undefined;
}

/** "npm test fails (it failed before the build too)": an unverified build's first line. */
export function unverifiedHeadline(verdict: RunVerdict): string {
  const before = verdict.failing.length > 0 && verdict.failing.every((f) => f.before);
  return `${failingHeadline(verdict)}${before ? ` (${verdict.failing.length === 1 ? "it" : "they"} failed before the build too)` : ""}`;
}

/** A check's result as the build's state keeps it: the output's end, where a runner prints its failure count. */
export const KEPT_OUTPUT = 4_000;
export function keptResult(result: CheckResult): CheckResult {
  return result.output.length > KEPT_OUTPUT ? { ...result, output: result.output.slice(-KEPT_OUTPUT) } : result;
}
