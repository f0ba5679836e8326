import { describe, expect, it } from "vitest";
import { OTTO_MARKER } from "../../../src/pr/index.ts";
import { inlineBody, renderTable, reviewBody, type DraftComment } from "../../../src/pr-review/index.ts";

const c = (id: number, inDiff: boolean, extra: Partial<DraftComment> = {}): DraftComment => ({
  id,
  inDiff,
  file: "src/auth/handler.go",
  line: 40 + id,
  severity: "warning",
  title: "Missing error check",
  body: "db.Query's error is ignored | so a failure panics later.\nReturn it.",
  ...extra,
});

describe("renderTable", () => {
  it("numbers the comments, one row each, pipes escaped, long text cut", () => {
    const table = renderTable([c(1, true), c(2, false, { title: "", body: "x".repeat(200), severity: "nitpick" })], [1]);
    expect(table.split("\n")).toEqual([
      "| # | File | Line | Severity | Comment |",
      "|---|---|---|---|---|",
      "| 1 (posted) | src/auth/handler.go | 41 | warning | Missing error check: db.Query's error is ignored \\| so a failure panic… |",
      `| 2 | src/auth/handler.go | 42 (summary) | nitpick | ${"x".repeat(69)}… |`,
    ]);
  });

  it("says when there is nothing", () => {
    expect(renderTable([])).toBe("_No comments._");
  });
});

describe("bodies", () => {
  it("marks inline comments as otto's", () => {
    expect(inlineBody(c(1, true))).toBe(
      `${OTTO_MARKER}\n**Warning: Missing error check**\n\ndb.Query's error is ignored | so a failure panics later.\nReturn it.`,
    );
  });

  it("puts the summary and the comments outside the diff in the review body", () => {
    const body = reviewBody({ summary: "Adds auth.", inlineCount: 2, outside: [c(3, false)] });
    expect(body).toBe(
      [
        `${OTTO_MARKER}\n**otto review**: 2 inline comments, 1 outside the diff (below).`,
        "Adds auth.",
        "**Comments on lines outside the diff**\n- `src/auth/handler.go:43` (warning) **Missing error check**: db.Query's error is ignored | so a failure panics later. Return it.",
      ].join("\n\n"),
    );
    expect(reviewBody({ inlineCount: 1, outside: [] })).toBe(`${OTTO_MARKER}\n**otto review**: 1 inline comment.`);
  });
});

describe("a comment that enforces a team rule", () => {
  it("names the rule's id under the comment, in the table and in the summary's list", () => {
    const ruled = c(1, true, { rule: "r-1a2b3c" });
    expect(inlineBody(ruled)).toMatch(/Return it\.\n\n_Team rule `r-1a2b3c` \(\.otto\/rules\.md\)_$/);
    expect(renderTable([ruled])).toContain("| warning | [r-1a2b3c] Missing error check");
    expect(reviewBody({ inlineCount: 0, outside: [c(2, false, { rule: "r-1a2b3c" })] })).toContain("(team rule `r-1a2b3c`)");
    expect(inlineBody(c(3, true))).not.toContain("Team rule");
  });
});
