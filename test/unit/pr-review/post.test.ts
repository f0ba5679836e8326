import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PrBackend, PrInfo, ReviewPost } from "../../../src/pr/index.ts";
import { OTTO_MARKER } from "../../../src/pr/index.ts";
import { planReview, postReviewFromDraft, readDraft, saveDraft, type Draft } from "../../../src/pr-review/index.ts";

const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

function draft(extra: Partial<Draft> = {}): Draft {
  return {
    version: 1,
    pr: {
      provider: "github",
      repo: "octo/app",
      number: 5,
      url: "https://github.com/octo/app/pull/5",
      title: "Auth",
      sourceBranch: "feature/auth",
      targetBranch: "main",
      headSha: "a".repeat(40),
    },
    reviewedSha: "b".repeat(40),
    model: "mock/m1",
    createdAt: "2026-02-06T10:00:00.000Z",
    summary: "Adds auth.",
    comments: [
      { id: 1, file: "src/a.ts", line: 2, severity: "error", title: "Bug", body: `leaks ${SECRET}`, inDiff: true },
      { id: 2, file: "src/a.ts", line: 90, severity: "warning", title: "Far", body: "outside", inDiff: false },
      { id: 3, file: "src/b.ts", line: 1, severity: "nitpick", title: "Nit", body: "style", inDiff: true },
    ],
    posted: [],
    ...extra,
  };
}

const pr = (headSha = "a".repeat(40)): PrInfo => ({
  provider: "github",
  repo: "octo/app",
  number: 5,
  url: "https://github.com/octo/app/pull/5",
  title: "Auth",
  state: "open",
  draft: false,
  sourceBranch: "feature/auth",
  targetBranch: "main",
  headSha,
  author: "dev",
  createdAt: "",
  meta: {},
});

describe("planReview", () => {
  it("posts chosen in-diff comments inline, the others in the body, sanitized", () => {
    const plan = planReview(draft(), [1, 2], { summary: false, secrets: [] });
    expect(plan.review.comments).toEqual([
      { path: "src/a.ts", line: 2, side: "RIGHT", body: `${OTTO_MARKER}\n**Error: Bug**\n\nleaks [REDACTED]` },
    ]);
    expect(plan.review.body).toContain("1 inline comment, 1 outside the diff");
    expect(plan.review.body).toContain("`src/a.ts:90` (warning) **Far**: outside");
    expect(plan.review.body).not.toContain("Adds auth.");
    expect(planReview(draft(), [3], { summary: true, secrets: [] }).review.body).toContain("Adds auth.");
  });

  it("skips posted ids and refuses an empty review", () => {
    const plan = planReview(draft({ posted: [1] }), [1, 3], { summary: false, secrets: [] });
    expect(plan.inline.map((c) => c.id)).toEqual([3]);
    expect(plan.skipped).toEqual([1]);
    expect(() => planReview(draft({ posted: [1] }), [1], { summary: false, secrets: [] })).toThrow(
      expect.objectContaining({ code: "pr_review_nothing" }),
    );
  });
});

describe("drafts and posting", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const tmp = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-draft-"));
    dirs.push(dir);
    return dir;
  };

  it("reads the newest draft or the one of a PR, and says when there is none", async () => {
    const dir = tmp();
    await expect(readDraft(dir)).rejects.toMatchObject({ code: "pr_review_no_draft" });
    const first = await saveDraft(dir, draft());
    const second = await saveDraft(dir, draft({ pr: { ...draft().pr, number: 6 } }));
    fs.utimesSync(first, new Date(2000, 1, 1), new Date(2000, 1, 1));
    expect((await readDraft(dir)).file).toBe(second);
    expect(path.basename(second)).toBe("github-octo-app-6.json");
    expect((await readDraft(dir, { provider: "github", repo: "octo/app", number: 5 })).draft.pr.number).toBe(5);
    await expect(readDraft(dir, { provider: "github", repo: "octo/app", number: 7 })).rejects.toMatchObject({ code: "pr_review_no_draft" });
    expect(fs.statSync(first).mode & 0o777).toBe(0o600);
  });

  it("posts one review anchored to the reviewed head and records the posted ids", async () => {
    const dir = tmp();
    const file = await saveDraft(dir, draft());
    const posted: Array<{ pr: PrInfo; review: ReviewPost }> = [];
    const backend = { postReview: async (p: PrInfo, review: ReviewPost) => void posted.push({ pr: p, review }) } as unknown as PrBackend;
    const result = await postReviewFromDraft({ file, backend, pr: pr("c".repeat(40)), ids: [1, 3], summary: false, secrets: [] });
    expect(posted).toHaveLength(1);
    expect(posted[0]?.pr.headSha).toBe("a".repeat(40));
    expect(posted[0]?.review.comments.map((c) => c.path)).toEqual(["src/a.ts", "src/b.ts"]);
    expect(result.moved).toBe(true);
    expect((await readDraft(dir)).draft.posted).toEqual([1, 3]);
    // A second post of the same ids posts nothing.
    await expect(postReviewFromDraft({ file, backend, pr: pr(), ids: [1], summary: false, secrets: [] })).rejects.toMatchObject({
      code: "pr_review_nothing",
    });
    expect(posted).toHaveLength(1);
  });
});
