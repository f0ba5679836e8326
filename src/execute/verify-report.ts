import type { CheckResult } from "../workspace/index.ts";

/** The failed checks as a review report for the phase-fix prompt. */
export function verifyReport(group: number, failed: readonly CheckResult[]): string {
  const findings = failed.map((r) =>
    [
      `### critical: \`${r.command}\` ${r.timedOut ? "timed out" : `failed (exit ${r.exitCode})`}`,
      `- **Location**: the project's checks (spec.verify), run by otto after phase ${group}`,
      "- **Problem**: this check must pass before the phase is committed. Its output (the end of it):",
      "",
      "```",
      r.output.replace(/```/g, "ʼʼʼ") || "(no output)",
      "```",
      "",
      "- **Fix**: find the cause in the phase's changes and fix it; do not weaken, skip or delete the checks or tests.",
    ].join("\n"),
  );
  return [
    `# Phase ${group} Verification`,
    "",
    "## Summary",
    `${failed.length} of the project's checks failed after phase ${group}.`,
    "",
    "## Findings",
    ...findings,
  ].join("\n");
}
