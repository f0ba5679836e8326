import { describe, expect, it } from "vitest";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import { recordComments, renderHistoryEntry } from "../../../../src/pr/comments/index.ts";
import { codeExcerpt, threadText } from "../../../../src/pr/comments/comment-prompt.ts";
import { renderCommentPass } from "../../../../src/pr/comments/render-pass.ts";
import { parsePrDocument, renderPrDocument, type PrComment, type PrInfo } from "../../../../src/pr/index.ts";
import { samplePr } from "../sample-pr.ts";

const pr: PrInfo = samplePr();
const comment: PrComment = {
  id: "review-7",
  kind: "inline",
  author: "alice",
  body: "Missing error check on\nthe db.Query return value",
  createdAt: "2026-02-06T15:00:00Z",
  path: "src/auth/handler.go",
  line: 45,
  resolved: false,
  url: "https://github.com/octo/app/pull/42#discussion_r7",
};

describe("Comment History", () => {
  it("renders an entry: who, where, body, decision, action", () => {
    const text = renderHistoryEntry({
      comment,
      time: "2026-02-06T15:05:00Z",
      decision: "AGREE",
      action: "Fixed in e7f8g9h; thread resolved",
      reply: "Fixed in e7f8g9h: errors are returned.",
      model: "mock/m1 (otto-executor)",
    });
    expect(text).toBe(
      [
        "### Comment review-7 — @alice at 2026-02-06T15:00:00Z",
        "- **Where**: src/auth/handler.go:45 ([link](https://github.com/octo/app/pull/42#discussion_r7))",
        '- **Body**: "Missing error check on the db.Query return value"',
        "- **Decision**: AGREE",
        "- **Action**: Fixed in e7f8g9h; thread resolved (2026-02-06T15:05:00Z)",
        '- **Reply**: "Fixed in e7f8g9h: errors are returned."',
        "- **Model**: mock/m1 (otto-executor)",
      ].join("\n"),
    );
  });

  it("redacts secrets in what it quotes", () => {
    const text = renderHistoryEntry(
      {
        comment: { ...comment, body: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked" },
        time: "t",
        action: "Failed: sk-secret-value",
        reply: "x",
      },
      ["sk-secret-value"],
    );
    expect(text).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(text).not.toContain("sk-secret-value");
  });

  it("replaces the placeholder, appends later entries, adds seen ids once, and round-trips through the document", () => {
    const doc = newDocument(pr, "github-octo-app-42", 5, "2026-02-06T10:00:00.000Z");
    const first = recordComments(doc, {
      seen: ["review-7", "issue-1"],
      entries: [{ comment, time: "t1", decision: "BY_DESIGN", action: "Replied" }],
      failures: {},
      unseen: 0,
      log: ["comment review-7: BY_DESIGN"],
      now: "2026-02-06T15:05:00.000Z",
    });
    const second = recordComments(first, {
      seen: ["review-7", "review-9"],
      entries: [{ comment: { ...comment, id: "review-9" }, time: "t2", action: "Failed (attempt 1 of 2)" }],
      failures: { "review-9": 1 },
      log: [],
      now: "2026-02-06T15:06:00.000Z",
    });
    expect(second.data.seen_comment_ids).toEqual(["review-7", "issue-1", "review-9"]);
    expect(second.data.comment_failures).toEqual({ "review-9": 1 });
    const history = second.sections.find((s) => s.title === "Comment History")?.body ?? "";
    expect(history).not.toContain("No comments handled yet");
    expect(history.indexOf("### Comment review-7")).toBeLessThan(history.indexOf("### Comment review-9"));
    expect(history).toContain("- **Decision**: none");
    expect(second.log.at(-1)).toBe("2026-02-06T15:05:00.000Z comment review-7: BY_DESIGN");
    expect(parsePrDocument(second.key, renderPrDocument(second))).toEqual(second);
  });
});

describe("prompt context", () => {
  it("numbers the lines around the commented one and marks it", () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    const excerpt = codeExcerpt(text, 20, 2);
    expect(excerpt).toBe(["  18 | line 18", "  19 | line 19", "> 20 | line 20", "  21 | line 21", "  22 | line 22"].join("\n"));
    expect(codeExcerpt(text, 41)).toBe("");
  });

  it("shows the thread before the comment, otto's replies without markers", () => {
    const root = { ...comment, id: "review-1", body: "Why a map here?" };
    const reply = {
      ...comment,
      id: "review-2",
      author: "otto-bot",
      createdAt: "2026-02-06T15:01:00Z",
      body: "<!-- otto -->\n<!-- otto:reply:review-1:BY_DESIGN -->\nLookups by id.",
    };
    const again = { ...comment, id: "review-3", createdAt: "2026-02-06T15:02:00Z", body: "Still, please use a slice." };
    const text = threadText([root, reply, again], again);
    expect(text).toBe(
      "**alice** at 2026-02-06T15:00:00Z:\nWhy a map here?\n\n**otto-bot (otto, on your behalf)** at 2026-02-06T15:01:00Z:\nLookups by id.",
    );
  });
});

describe("renderCommentPass", () => {
  it("tables what was done, and says so when there was nothing", () => {
    const empty = renderCommentPass({ key: "github-octo-app-42", answered: [], recovered: [], failed: [], skipped: [] }, pr);
    expect(empty).toContain("No new reviewer comments to answer.");
    const text = renderCommentPass(
      {
        key: "k",
        answered: [{ comment, decision: "WONT_FIX", action: "Replied | resolved" }],
        recovered: [],
        failed: [],
        skipped: [{ comment, reason: "bot" }],
      },
      pr,
    );
    expect(text).toContain("1 answered, 0 recorded from an earlier run, 0 failed, 1 not for otto.");
    expect(text).toContain("| review-7 | alice | src/auth/handler.go:45 | WONT_FIX | Replied \\| resolved |");
  });
});
