import { describe, expect, it } from "vitest";
import { OTTO_MARKER } from "../../../../src/pr/index.ts";
import {
  LOOP_MARKER,
  finishComment,
  renderFailureReport,
  renderFixReport,
  renderReviewReport,
  type RoundReview,
} from "../../../../src/pr-review/loop/report.ts";
import { finding } from "./helpers.ts";

const ghp = `ghp_${"Z9y8".repeat(9)}`;
const none = { hasChangesRequested: false, changesRequestedBy: [] };

function review(over: Partial<RoundReview> = {}): RoundReview {
  return {
    round: 1,
    maxRounds: 3,
    consensus: "request_changes",
    reviewers: [
      { name: "reviewer-1", model: "mock/m1", ok: true, findings: 2 },
      { name: "reviewer-2", model: "mock/m2", ok: false, error: "invalid_envelope: no JSON", findings: 0 },
    ],
    reviewState: none,
    findings: [finding("P1", "Null check", { line: 7 }), finding("P3", "Naming", { line: null })],
    threads: [],
    stuck: [],
    next: "fixing 1 finding(s), then review round 2.",
    ...over,
  };
}

describe("review report", () => {
  it("shows the round, the consensus, counts by priority, each finding with its id, and partial reviewers", () => {
    const text = renderReviewReport(review());
    const p1 = finding("P1", "Null check", { line: 7 });
    expect(text).toContain("round 1/3, consensus **request changes**");
    expect(text).toContain("| P0 | P1 | P2 | P3 |\n|---|---|---|---|\n| 0 | 1 | 0 | 1 |");
    expect(text).toContain(`### P1\n\n- **${p1.id}** \`src/a.ts:7\`: Null check (reviewer-1) — Null check is wrong. Suggestion: Fix it.`);
    expect(text).toMatch(/- \*\*QUAL-[0-9a-f]{8}\*\* `src\/a.ts`: Naming/);
    expect(text).toContain("Reviewers: 1/2 answered");
    expect(text).toContain("partial review: reviewer-2 (mock/m2) failed: invalid_envelope: no JSON");
    expect(text).toContain("**Next:** fixing 1 finding(s)");
  });

  it("lists changes requested, unresolved comments and stuck findings", () => {
    const stuck = finding("P2", "Still broken");
    const text = renderReviewReport(
      review({
        reviewState: { hasChangesRequested: true, changesRequestedBy: [{ login: "lead", association: "MEMBER" }] },
        threads: [
          { ...finding("P1", "Rename the flag"), id: "THREAD-review-9", source: { type: "human", name: "lead", reviewId: "review-9" } },
        ],
        stuck: [stuck],
      }),
    );
    expect(text).toContain("changes requested by @lead (MEMBER)");
    expect(text).toContain("### Unresolved review comments\n\n- **THREAD-review-9**");
    expect(text).toContain(`### Stuck (reported fixed, found again; not sent to the fix agent again)\n\n- **${stuck.id}**`);
  });
});

describe("posted comments", () => {
  it("carry the loop marker, otto's marker and a tag, and are sanitized", () => {
    const body = renderReviewReport(
      review({
        findings: [finding("P0", "Leaked token", { description: `The file has ${ghp} and AKIAIOSFODNN7EXAMPLE and my-adopat-12345.` })],
      }),
    );
    const posted = finishComment(
      "round-1-review-report",
      `${body}\n\n\`\`\`diff\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\`\`\``,
      ["my-adopat-12345"],
    );
    expect(posted.startsWith(`${LOOP_MARKER}\n${OTTO_MARKER}\n<!-- otto-loop:round-1-review-report -->\n`)).toBe(true);
    for (const leak of [ghp, "AKIAIOSFODNN7EXAMPLE", "my-adopat-12345", "diff --git"]) expect(posted).not.toContain(leak);
    expect(posted).toContain("[REDACTED]");
    expect(posted).toContain("Leaked token");
  });

  it("drop diff blocks a model put inside a finding or a fix description, before lines are joined", () => {
    const diff = "Patch:\n```diff\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```\nDone.";
    const reviewText = renderReviewReport(review({ findings: [finding("P1", "Bad", { description: diff })] }));
    const fixText = renderFixReport({
      round: 1,
      account: { fixed: [{ findingId: "QUAL-1", description: diff }], rejected: [], missing: [], unknown: [] },
      checks: [],
      push: "nothing",
    });
    for (const text of [reviewText, fixText]) {
      const posted = finishComment("t", text, []);
      expect(posted).not.toContain("diff --git");
      expect(posted).toContain("Patch: [diff omitted: see the commit] Done.");
    }
  });

  it("are capped below GitHub's limit", () => {
    const posted = finishComment("t", "x".repeat(70_000), []);
    expect(posted.length).toBeLessThan(65_536);
    expect(posted).toMatch(/\[TRUNCATED_COMMENT\]$/);
  });
});

describe("fix and failure reports", () => {
  it("list fixed and rejected findings, failed checks with their output, the push", () => {
    const text = renderFixReport({
      round: 2,
      account: {
        fixed: [{ findingId: "QUAL-1", description: "Guarded" }],
        rejected: [{ findingId: "SEC-2", reason: "Test fixture" }],
        missing: [],
        unknown: [],
      },
      checks: [
        { command: "npm test", passed: true, output: "" },
        { command: "npm run lint", passed: false, output: "a.ts:1 error" },
      ],
      push: "pushed: Pushed 1 commit(s) to origin/feature (abc1234)",
      note: "**Next:** review round 3.",
    });
    expect(text).toContain("fixes of round 2");
    expect(text).toContain("Fixed: 1, rejected: 1.");
    expect(text).toContain("- **QUAL-1**: Guarded");
    expect(text).toContain("- **SEC-2**: Test fixture");
    expect(text).toContain("- ✅ `npm test`");
    expect(text).toContain("- ❌ `npm run lint`\n\n```text\na.ts:1 error\n```");
    expect(text).toContain("**Push:** pushed: Pushed 1 commit(s)");
  });

  it("failure report says where and why", () => {
    expect(renderFailureReport(2, "all 2 reviewer(s) failed", "- reviewer-1: timeout")).toBe(
      "## otto review loop stopped in round 2\n\nall 2 reviewer(s) failed\n\n- reviewer-1: timeout",
    );
  });
});
