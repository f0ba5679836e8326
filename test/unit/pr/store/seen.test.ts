import { describe, expect, it } from "vitest";
import { boundSeen, MAX_SEEN_IDS, seenTest } from "../../../../src/pr/store/seen.ts";
import { unhandledComments } from "../../../../src/pr/store/markers.ts";
import type { PrComment } from "../../../../src/pr/index.ts";

const at = (i: number): string => new Date(Date.parse("2026-02-06T00:00:00Z") + i * 1000).toISOString();
const comment = (i: number): PrComment => ({
  id: `issue-${i}`,
  kind: "conversation",
  author: "eve",
  body: `b${i}`,
  createdAt: at(i),
  resolved: false,
});

describe("bounded seen comments", () => {
  it("keeps the most recent ids and raises the mark to the newest dropped comment", () => {
    const comments = Array.from({ length: 1500 }, (_, i) => comment(i));
    const bounded = boundSeen({ ids: comments.map((c) => c.id) }, comments);
    expect(bounded.ids).toHaveLength(MAX_SEEN_IDS);
    expect(bounded.ids[0]).toBe("issue-500");
    expect(bounded.before).toBe(at(499));
    // Every one of the 1500 still counts as seen: none is handed to the comment flow again.
    expect(unhandledComments(comments, bounded)).toEqual([]);
    // A comment made after them is new.
    expect(unhandledComments([...comments, comment(1600)], bounded).map((c) => c.id)).toEqual(["issue-1600"]);
  });

  it("never lowers the mark, and drops ids of comments the forge no longer lists without moving it", () => {
    const comments = [comment(5), comment(6)];
    const bounded = boundSeen({ ids: ["gone-1", "issue-5", "issue-6"], before: at(10) }, comments, 1);
    expect(bounded).toEqual({ ids: ["issue-6"], before: at(10) });
    expect(boundSeen({ ids: ["gone-1", "issue-6"] }, comments, 1)).toEqual({ ids: ["issue-6"], before: undefined });
  });

  it("compares times, not strings (GitHub has no milliseconds, Azure DevOps has)", () => {
    const seen = seenTest({ ids: [], before: "2026-02-06T00:00:01.500Z" });
    expect(seen({ id: "a", createdAt: "2026-02-06T00:00:01Z" })).toBe(true);
    expect(seen({ id: "b", createdAt: "2026-02-06T00:00:02Z" })).toBe(false);
    expect(seenTest(["a"])({ id: "a", createdAt: "x" })).toBe(true);
  });
});
