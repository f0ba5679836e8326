import { describe, expect, it } from "vitest";
import type { PrReview } from "../../../../src/pr/index.ts";
import { consensusOf, reviewStateOf } from "../../../../src/pr-review/loop/consensus.ts";

const counts = (P0 = 0, P1 = 0, P2 = 0, P3 = 0) => ({ P0, P1, P2, P3 });
const none = { hasChangesRequested: false, changesRequestedBy: [] };
const requested = { hasChangesRequested: true, changesRequestedBy: [{ login: "lead", association: "MEMBER" }] };

describe("consensus (A6)", () => {
  it.each([
    ["no findings", counts(), none, "approve"],
    ["only P3", counts(0, 0, 0, 4), none, "approve"],
    ["a P2", counts(0, 0, 1), none, "request_changes"],
    ["a P1", counts(0, 1), none, "request_changes"],
    ["a P0", counts(1, 2, 3), none, "needs_major_work"],
    ["changes requested, nothing found", counts(), requested, "request_changes"],
    ["changes requested wins over P0", counts(2), requested, "request_changes"],
  ] as const)("%s → %s", (_name, c, state, expected) => {
    expect(consensusOf(c, state)).toBe(expected);
  });
});

describe("review state from the forge's reviews", () => {
  const r = (author: string, state: PrReview["state"], association: string, minute: number): PrReview => ({
    author,
    state,
    association,
    submittedAt: `2026-01-01T00:${String(minute).padStart(2, "0")}:00Z`,
  });

  it("changes requested by an owner, member or collaborator stand", () => {
    const state = reviewStateOf([
      r("alice", "changes_requested", "MEMBER", 1),
      r("bob", "changes_requested", "OWNER", 2),
      r("carol", "changes_requested", "COLLABORATOR", 3),
    ]);
    expect(state).toEqual({
      hasChangesRequested: true,
      changesRequestedBy: [
        { login: "alice", association: "MEMBER" },
        { login: "bob", association: "OWNER" },
        { login: "carol", association: "COLLABORATOR" },
      ],
    });
  });

  it("contributors and first-timers do not bind the loop", () => {
    expect(
      reviewStateOf([r("dan", "changes_requested", "CONTRIBUTOR", 1), r("eve", "changes_requested", "NONE", 2)]).hasChangesRequested,
    ).toBe(false);
  });

  it("a later approval or dismissal lifts the request; a later comment does not", () => {
    expect(reviewStateOf([r("alice", "changes_requested", "MEMBER", 1), r("alice", "approved", "MEMBER", 2)]).hasChangesRequested).toBe(
      false,
    );
    expect(reviewStateOf([r("alice", "changes_requested", "MEMBER", 1), r("alice", "dismissed", "MEMBER", 2)]).hasChangesRequested).toBe(
      false,
    );
    expect(reviewStateOf([r("alice", "changes_requested", "MEMBER", 1), r("alice", "commented", "MEMBER", 2)]).hasChangesRequested).toBe(
      true,
    );
    expect(reviewStateOf([r("alice", "approved", "MEMBER", 1), r("alice", "changes_requested", "MEMBER", 2)]).hasChangesRequested).toBe(
      true,
    );
  });

  it("orders by submission time, not by list order, and ignores pending reviews", () => {
    expect(reviewStateOf([r("alice", "approved", "MEMBER", 5), r("alice", "changes_requested", "MEMBER", 1)]).hasChangesRequested).toBe(
      false,
    );
    expect(reviewStateOf([{ author: "bob", state: "pending", association: "OWNER" }]).hasChangesRequested).toBe(false);
  });

  it("Azure DevOps votes (-10, -5) arrive as changes requested by members", () => {
    expect(reviewStateOf([{ author: "lead@contoso.com", state: "changes_requested", association: "MEMBER" }])).toEqual({
      hasChangesRequested: true,
      changesRequestedBy: [{ login: "lead@contoso.com", association: "MEMBER" }],
    });
  });
});
