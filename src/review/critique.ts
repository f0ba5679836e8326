import { z } from "zod";

/*
 * The reviewer's answer, in a BEGIN_JSON … END_JSON envelope. Review prompts must ask for exactly
 * this shape (the json-retry prompt shows it as JSON Schema when a reply does not match).
 */

export const Severity = z.enum(["critical", "major", "minor", "nit"]);
export type Severity = z.infer<typeof Severity>;

export const Finding = z.object({
  severity: Severity,
  /** Section, file or line the finding is about. */
  location: z.string().optional(),
  problem: z.string().min(1),
  fix: z.string().optional(),
});
export type Finding = z.infer<typeof Finding>;

export const Critique = z.object({
  /** "approve": good as it is (only minor/nit findings); "revise": needs another pass. */
  verdict: z.enum(["approve", "revise"]),
  summary: z.string().default(""),
  issues: z.array(Finding).default([]),
});
export type Critique = z.infer<typeof Critique>;

/** Approved: the verdict says so and no finding is major or critical (a contradicting verdict loses). */
export function isApproval(critique: Critique): boolean {
  return critique.verdict === "approve" && !critique.issues.some((i) => i.severity === "critical" || i.severity === "major");
}

/** "revise: 1 critical, 2 major" */
export function summarizeCritique(critique: Critique): string {
  const counts = Severity.options
    .map((severity) => [severity, critique.issues.filter((i) => i.severity === severity).length] as const)
    .filter(([, n]) => n > 0)
    .map(([severity, n]) => `${n} ${severity}`);
  return `${critique.verdict}: ${counts.length ? counts.join(", ") : "no issues"}`;
}

/** The critique as markdown, for the refine prompt and for logs. */
export function formatCritique(critique: Critique): string {
  const lines = [`Verdict: ${critique.verdict}`];
  if (critique.summary) lines.push("", critique.summary);
  if (critique.issues.length) lines.push("", "Issues:");
  for (const issue of critique.issues) {
    const where = issue.location ? ` (${issue.location})` : "";
    lines.push(`- [${issue.severity}]${where} ${issue.problem}${issue.fix ? `\n  Fix: ${issue.fix}` : ""}`);
  }
  return lines.join("\n");
}
