import type { CheckResult } from "./checks.ts";

/**
 * How a check did against the baseline, the same check run once on the untouched tree before the
 * work started: a check that already failed there is the project's, not the work's, and fails the
 * work only when it gets worse.
 */
export type CheckVerdict = "passed" | "fixed" | "new_failure" | "pre_existing" | "worse";

export interface CheckComparison {
  command: string;
  verdict: CheckVerdict;
  /** Failures the runner reported, when its output says (vitest/jest/pytest/cargo counts, go's FAIL lines). */
  before?: number;
  after?: number;
  /** "npm test: failed before the work too (3 failures), not worse (3 now)". */
  line: string;
}

// eslint-disable-next-line no-control-regex -- ANSI colour codes are control characters.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/** Summary lines of test runners, the last one in the output wins (a runner prints it last). */
const COUNTS: { name: string; pattern: RegExp; sum?: boolean }[] = [
  // vitest: " Tests  2 failed | 5 passed (7)"; jest: "Tests:       2 failed, 5 passed, 7 total"
  { name: "vitest/jest", pattern: /^\s*Tests:?\s+(\d+) failed\b/gm },
  // pytest: "===== 2 failed, 5 passed in 0.12s ====="
  { name: "pytest", pattern: /^=+ (?:.*?\b)?(\d+) failed\b.* in [\d.]+s(?: \([^)]*\))? =+$/gm },
  // cargo: "test result: FAILED. 5 passed; 2 failed; …", one line per test binary.
  { name: "cargo", pattern: /^test result: FAILED\. \d+ passed; (\d+) failed;/gm, sum: true },
  // mocha/node --test style: "2 failing", "# fail 2"
  { name: "mocha", pattern: /^\s*(\d+) failing\b/gm },
  { name: "node --test", pattern: /^[#ℹ] fail (\d+)\b/gm },
];

/**
 * The number of failures a test runner printed, or undefined when the output says none we know.
 * Go has no total: its `--- FAIL:` lines (one per failed test) are counted, else its `FAIL <pkg>`
 * lines (a package that did not build).
 */
export function failureCount(output: string): number | undefined {
  const text = output.replace(ANSI, "");
  for (const { pattern, sum } of COUNTS) {
    const counts = [...text.matchAll(pattern)].map((m) => Number(m[1]));
    if (counts.length === 0) continue;
    return sum ? counts.reduce((a, b) => a + b, 0) : counts.at(-1);
  }
  const goTests = text.match(/^\s*--- FAIL: /gm)?.length ?? 0;
  if (goTests > 0) return goTests;
  const goPackages = text.match(/^FAIL\s+\S+/gm)?.filter((l) => !/^FAIL\s*$/.test(l)).length ?? 0;
  return goPackages > 0 ? goPackages : undefined;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Each result against the baseline's run of the same command. Exit code 0 → non-zero is a new
 * failure; an already-failing check is worse only when the runner's failure count grew. When a
 * count is missing on either side, still failing counts as not worse, and the line says so.
 */
export function compareToBaseline(baseline: readonly CheckResult[], results: readonly CheckResult[]): CheckComparison[] {
  return results.map((result) => {
    const before = baseline.find((b) => b.command === result.command);
    const { command } = result;
    if (result.passed)
      return {
        command,
        verdict: before && !before.passed ? "fixed" : "passed",
        line: `${command}: ${before && !before.passed ? "passed (it failed before the work)" : "passed"}`,
      };
    if (!before || before.passed)
      return {
        command,
        verdict: "new_failure",
        line: `${command}: ${result.timedOut ? "timed out" : `exit ${result.exitCode}`} (new failure${before ? ": it passed before the work" : ""})`,
      };
    const b = failureCount(before.output);
    const a = failureCount(result.output);
    const counts = { ...(b !== undefined ? { before: b } : {}), ...(a !== undefined ? { after: a } : {}) };
    if (a !== undefined && b !== undefined) {
      if (a > b)
        return {
          command,
          verdict: "worse",
          ...counts,
          line: `${command}: worse than before the work (${plural(b, "failure")} before, ${a} now)`,
        };
      return {
        command,
        verdict: "pre_existing",
        ...counts,
        line: `${command}: failed before the work too (${plural(b, "failure")}), not worse (${a} now)`,
      };
    }
    return {
      command,
      verdict: "pre_existing",
      ...counts,
      line: `${command}: failed before the work too; no failure count in its output, so still failing counts as not worse`,
    };
  });
}

/** The work is not verified: a check failed that passed before, or fails more than it did. */
export function isBlocking(comparison: CheckComparison): boolean {
  return comparison.verdict === "new_failure" || comparison.verdict === "worse";
}

/** One line for the baseline itself: "baseline: npm test: exit 1 (3 failures, pre-existing), go vet ./...: passed". */
export function describeBaseline(baseline: readonly CheckResult[]): string {
  if (baseline.length === 0) return "baseline: no checks";
  return `baseline: ${baseline
    .map((r) => {
      if (r.passed) return `${r.command}: passed`;
      const n = failureCount(r.output);
      return `${r.command}: ${r.timedOut ? "timed out" : `exit ${r.exitCode}`} (pre-existing${n !== undefined ? `, ${plural(n, "failure")}` : ""})`;
    })
    .join(", ")}`;
}
