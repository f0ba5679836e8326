import { describe, expect, it } from "vitest";
import { accountFor, closeAccount, fixPayload, stuckIds } from "../../../../src/pr-review/loop/fix-plan.ts";
import { finding } from "./helpers.ts";

describe("stuck findings", () => {
  const a = finding("P1", "a");
  const b = finding("P2", "b");

  it("are findings reported fixed earlier and reported again", () => {
    expect([...stuckIds([a, b], new Set([a.id]), new Set())]).toEqual([a.id]);
  });

  it("stay stuck in later rounds, and nothing is stuck in round 1", () => {
    expect([...stuckIds([b], new Set(), new Set([a.id]))]).toEqual([a.id]);
    expect(stuckIds([a, b], new Set(), new Set()).size).toBe(0);
  });
});

describe("fix payload (A4)", () => {
  it("sends P0–P2 to fix, most urgent first, P3 as optional, stuck ones nowhere, duplicates once", () => {
    const p3 = finding("P3", "nit");
    const p2 = finding("P2", "p2");
    const p0 = finding("P0", "p0");
    const stuck = finding("P1", "stuck");
    const payload = fixPayload(7, 2, [p3, p2, p0, stuck, finding("P2", "p2", { reviewer: "reviewer-2" })], new Set([stuck.id]));
    expect(payload.prNumber).toBe(7);
    expect(payload.round).toBe(2);
    expect(payload.issuesToFix.map((f) => f.id)).toEqual([p0.id, p2.id]);
    expect(payload.optionalIssues.map((f) => f.id)).toEqual([p3.id]);
  });
});

describe("fix result coverage (A5)", () => {
  const issues = [finding("P1", "a"), finding("P2", "b"), finding("P2", "c")];
  const [a, b, c] = issues.map((f) => f.id) as [string, string, string];

  it("is complete when fixed + rejected = issues", () => {
    const account = accountFor(issues, {
      fixedIssues: [
        { findingId: a, description: "done" },
        { findingId: b, description: "" },
      ],
      rejectedIssues: [{ findingId: c, reason: "by design" }],
    });
    expect(account.missing).toEqual([]);
    expect(account.fixed.map((f) => f.findingId)).toEqual([a, b]);
    expect(account.rejected).toEqual([{ findingId: c, reason: "by design" }]);
  });

  it("lists the issues left out, ignores unknown ids, and counts an id both fixed and rejected as rejected", () => {
    const account = accountFor(issues, {
      fixedIssues: [
        { findingId: a, description: "" },
        { findingId: "QUAL-deadbeef", description: "" },
        { findingId: a, description: "twice" },
      ],
      rejectedIssues: [{ findingId: a, reason: "unsure" }],
    });
    expect(account.missing).toEqual([b, c]);
    expect(account.unknown).toEqual(["QUAL-deadbeef"]);
    expect(account.fixed).toEqual([]);
    expect(account.rejected).toEqual([{ findingId: a, reason: "unsure" }]);
  });

  it("after the retry, what is still missing counts as rejected", () => {
    const closed = closeAccount(accountFor(issues, { fixedIssues: [{ findingId: a, description: "" }], rejectedIssues: [] }));
    expect(closed.missing).toEqual([]);
    expect(closed.fixed.length + closed.rejected.length).toBe(issues.length);
    expect(closed.rejected.map((r) => r.findingId)).toEqual([b, c]);
    expect(closed.rejected[0]?.reason).toContain("not addressed");
  });
});
