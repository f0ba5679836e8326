import { describe, expect, it } from "vitest";
import { decideRound, type RoundFacts } from "../../../../src/pr-review/loop/decide.ts";
import { finding } from "./helpers.ts";

const none = { hasChangesRequested: false, changesRequestedBy: [] };
const facts = (over: Partial<RoundFacts> = {}): RoundFacts => ({
  round: 1,
  maxRounds: 3,
  consensus: "request_changes",
  reviewState: none,
  toFix: 1,
  stuck: 0,
  threads: [],
  canPush: true,
  ...over,
});
function stopReason(f: RoundFacts): string {
  const d = decideRound(f);
  return d.action === "stop" ? d.reason : `not a stop: ${d.action}`;
}
const thread = (priority: "P1" | "P3") => ({ ...finding(priority, "thread"), id: "THREAD-review-1" });

describe("what a round leads to", () => {
  it("approve ends the loop", () => {
    expect(decideRound(facts({ consensus: "approve", toFix: 0 })).action).toBe("approved");
  });

  it("findings to fix on a pushable branch: fix, then review again", () => {
    const d = decideRound(facts());
    expect(d).toEqual({ action: "fix", next: "fixing 1 finding(s), then review round 2." });
  });

  it("the last round still fixes, then stops at max rounds", () => {
    const d = decideRound(facts({ round: 3 }));
    expect(d.action).toBe("fix");
    expect(d.action === "fix" && d.stopAfter).toMatch(/max rounds reached \(3\)/);
  });

  it("unresolved blocking review comments: fix the code findings, then stop for people", () => {
    const d = decideRound(facts({ threads: [thread("P1")] }));
    expect(d.action === "fix" && d.stopAfter).toMatch(/manual resolution required: 1 unresolved review comment/);
    expect(decideRound(facts({ threads: [thread("P3")] }))).toEqual({ action: "fix", next: "fixing 1 finding(s), then review round 2." });
  });

  it("nothing left to fix but stuck findings, threads or changes requested: manual intervention", () => {
    expect(stopReason(facts({ toFix: 0, stuck: 2 }))).toMatch(/manual intervention required: 2 stuck finding/);
    expect(stopReason(facts({ toFix: 0, threads: [thread("P1")] }))).toMatch(/1 unresolved review comment/);
    const requested = { hasChangesRequested: true, changesRequestedBy: [{ login: "lead", association: "MEMBER" }] };
    expect(stopReason(facts({ toFix: 0, reviewState: requested }))).toMatch(/changes requested by @lead/);
  });

  it("a branch otto cannot push: review only", () => {
    expect(stopReason(facts({ canPush: false, pushBlocker: "permission denied" }))).toMatch(/review only: .*permission denied/);
  });
});
