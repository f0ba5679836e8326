import { describe, expect, it } from "vitest";
import { Critique, formatCritique, isApproval, summarizeCritique } from "../../../src/review/index.ts";

describe("Critique", () => {
  it("fills defaults", () => {
    expect(Critique.parse({ verdict: "approve" })).toEqual({ verdict: "approve", summary: "", issues: [] });
  });

  it("approves only without major or critical findings", () => {
    const minor = Critique.parse({ verdict: "approve", issues: [{ severity: "minor", problem: "typo" }] });
    const major = Critique.parse({ verdict: "approve", issues: [{ severity: "major", problem: "wrong" }] });
    expect(isApproval(minor)).toBe(true);
    expect(isApproval(major)).toBe(false);
    expect(isApproval(Critique.parse({ verdict: "revise" }))).toBe(false);
  });

  it("summarises and formats", () => {
    const critique = Critique.parse({
      verdict: "revise",
      summary: "Gaps.",
      issues: [
        { severity: "critical", location: "§2", problem: "No auth", fix: "Add auth" },
        { severity: "major", problem: "Vague" },
        { severity: "major", problem: "Untestable" },
      ],
    });
    expect(summarizeCritique(critique)).toBe("revise: 1 critical, 2 major");
    expect(formatCritique(critique)).toBe(
      "Verdict: revise\n\nGaps.\n\nIssues:\n- [critical] (§2) No auth\n  Fix: Add auth\n- [major] Vague\n- [major] Untestable",
    );
  });
});
