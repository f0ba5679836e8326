import { describe, expect, it } from "vitest";
import { decideTrust, distrustText, isListed, needsLookup, type TrustPolicy } from "../../../../src/pr/comments/trust.ts";
import { selectComments, type BotPolicy } from "../../../../src/pr/comments/index.ts";
import type { PrComment } from "../../../../src/pr/index.ts";

let clock = 0;
const at = () => new Date(Date.parse("2026-02-06T10:00:00Z") + ++clock * 1000).toISOString();
const c = (id: string, over: Partial<PrComment> = {}): PrComment => ({
  id,
  kind: "conversation",
  author: "someone",
  body: `body of ${id}`,
  createdAt: at(),
  resolved: false,
  ...over,
});
const add = (logins: string[] = []): TrustPolicy => ({ mode: "add", logins });
const only = (logins: string[]): TrustPolicy => ({ mode: "only", logins });

describe("decideTrust", () => {
  it("GitHub: only OWNER settles it without a request; MEMBER, COLLABORATOR and everyone else ask the permission API", () => {
    const owner = c("issue-1", { association: "OWNER" });
    expect(needsLookup(owner, add())).toBe(false);
    expect(decideTrust(owner, add())).toEqual({ trusted: true, reason: "association" });
    // An organization member with a read base role, a read or triage collaborator: the association says nothing about write access.
    for (const association of [
      "MEMBER",
      "collaborator",
      "NONE",
      "CONTRIBUTOR",
      "FIRST_TIME_CONTRIBUTOR",
      "FIRST_TIMER",
      "MANNEQUIN",
      undefined,
    ]) {
      const comment = c("issue-2", association ? { association } : {});
      expect(needsLookup(comment, add())).toBe(true);
      expect(decideTrust(comment, add(), "write")).toEqual({ trusted: true, reason: "access" });
      expect(decideTrust(comment, add(), "none")).toEqual({ trusted: false, reason: "no_access" });
      expect(decideTrust(comment, add(), undefined)).toEqual({ trusted: false, reason: "lookup_failed" });
    }
  });

  it("a failed lookup trusts nobody", () => {
    expect(decideTrust(c("issue-1", { association: "NONE" }), add(), undefined)).toEqual({ trusted: false, reason: "lookup_failed" });
  });

  it("mode add: listed people are trusted without a request, by any of their names, without case", () => {
    const policy = add(["Alice", "bob@contoso.com", "3B5F0C34-4AEC-4BF4-8708-1D36F0DBC468"]);
    const alice = c("issue-1", { author: "alice", association: "NONE" });
    expect(needsLookup(alice, policy)).toBe(false);
    expect(decideTrust(alice, policy)).toEqual({ trusted: true, reason: "listed" });
    // Azure DevOps: the sign-in name or the identity id match too.
    expect(isListed({ author: "Bob Builder", authorLogin: "BOB@contoso.com" }, policy)).toBe(true);
    expect(isListed({ author: "Christie Church", authorId: "3b5f0c34-4aec-4bf4-8708-1d36f0dbc468" }, policy)).toBe(true);
    expect(isListed({ author: "Mallory" }, policy)).toBe(false);
  });

  it("mode only: the list alone, the forge is never asked; a collaborator outside it is not answered", () => {
    const policy = only(["alice"]);
    const lead = c("issue-1", { author: "lead", association: "OWNER" });
    expect(needsLookup(lead, policy)).toBe(false);
    expect(decideTrust(lead, policy, "write")).toEqual({ trusted: false, reason: "not_listed" });
    expect(decideTrust(c("issue-2", { author: "ALICE", association: "NONE" }), policy)).toEqual({ trusted: true, reason: "listed" });
  });

  it("says why in words a person can act on", () => {
    const comment = c("issue-1", { author: "mallory" });
    expect(distrustText(comment, "no_access", "github")).toBe("mallory has no write access to the repository");
    expect(distrustText(comment, "no_access", "ado")).toBe("mallory is not a member of the project's teams");
    expect(distrustText(comment, "not_listed", "github")).toContain('pr.trusted_authors (mode "only")');
    expect(distrustText(comment, "lookup_failed", "github")).toContain("could not check");
  });
});

describe("selectComments with trust", () => {
  const noBot: BotPolicy = { ids: [], handle: false };

  it("skips untrusted comments; they neither cover a trusted comment of their thread nor are covered", () => {
    const root = c("review-1", { kind: "inline", author: "lead" });
    const driveBy = c("review-2", { kind: "inline", author: "mallory", inReplyTo: "review-1" });
    const other = c("issue-3", { author: "mallory" });
    const trust = new Map([
      ["review-1", { trusted: true, reason: "association" as const }],
      ["review-2", { trusted: false, reason: "no_access" as const }],
      // issue-3 missing: not trusted.
    ]);
    const plan = selectComments({ comments: [root, driveBy, other], seen: [], me: "otto-bot", bot: noBot, trust });
    expect(plan.handle.map((x) => x.id)).toEqual(["review-1"]);
    expect(plan.skipped.map((s) => [s.comment.id, s.reason])).toEqual([
      ["review-2", "untrusted"],
      ["issue-3", "untrusted"],
    ]);
  });

  it("the enabled review bot (by identity id) is trusted by its setting, without a decision; its display name alone is not", () => {
    const bot = { ids: ["b0b0b0b0-0000-4000-8000-000000000001"], handle: true };
    const plan = selectComments({
      comments: [
        c("1/1", { author: "MerlinBot", authorId: "b0b0b0b0-0000-4000-8000-000000000001" }),
        c("2/1", { author: "MerlinBot", authorId: "e0e0e0e0-0000-4000-8000-000000000002" }),
      ],
      seen: [],
      bot,
      trust: new Map(),
    });
    expect(plan.handle.map((x) => x.id)).toEqual(["1/1"]);
    expect(plan.skipped.map((s) => [s.comment.id, s.reason])).toEqual([["2/1", "untrusted"]]);
  });
});
