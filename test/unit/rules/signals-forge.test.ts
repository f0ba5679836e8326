import { describe, expect, it } from "vitest";
import { mapComments } from "../../../src/pr/github/map.ts";
import { mapAdoPull, mapThreads } from "../../../src/pr/ado/map.ts";
import { fixedIn, replyBody } from "../../../src/pr/comments/index.ts";

/* What rules learning reads from the forges' payloads: outdated comments, thread resolutions, otto's fixed replies. */

const user = { login: "lead" };

describe("forge payloads for rules learning", () => {
  it("GitHub: a review comment without a line on the head (a later commit changed it) is outdated; a file comment is not", () => {
    const base = { user, created_at: "2026-11-01T00:00:00Z", html_url: "h", path: "src/a.ts", body: "b" };
    const [outdated, current, file] = mapComments(
      [],
      [
        { ...base, id: 1, line: null, original_line: 4 },
        { ...base, id: 2, line: 4, original_line: 4 },
        { ...base, id: 3, line: null, original_line: null },
      ],
      {},
    );
    expect([outdated?.outdated, current?.outdated, file?.outdated]).toEqual([true, undefined, undefined]);
  });

  it("Azure DevOps: a thread's status is its resolution; an active one has none", () => {
    const thread = (id: number, status: string) => ({
      id,
      status,
      comments: [{ id: 1, content: "c", publishedDate: "2026-11-01T00:00:00Z", author: { displayName: "Alice" } }],
    });
    expect(
      mapThreads(["fixed", "wontFix", "byDesign", "closed", "active"].map((s, i) => thread(i + 1, s))).map((c) => c.resolution),
    ).toEqual(["resolved", "wont_fix", "by_design", "closed", undefined]);
  });

  it("Azure DevOps: the PR's author ids and its last change come with the PR", () => {
    const pr = mapAdoPull(
      { provider: "ado", repo: "contoso/payments/app", number: 3 },
      {
        pullRequestId: 3,
        status: "completed",
        title: "t",
        creationDate: "2026-11-01T00:00:00Z",
        closedDate: "2026-11-03T00:00:00Z",
        sourceRefName: "refs/heads/f",
        targetRefName: "refs/heads/main",
        createdBy: { id: "id-1", displayName: "Dev", uniqueName: "dev@contoso.com" },
        repository: { id: "r", name: "app", project: { id: "p", name: "payments" } },
      },
      "https://dev.azure.com",
    );
    expect([pr.authorId, pr.authorLogin, pr.updatedAt]).toEqual(["id-1", "dev@contoso.com", "2026-11-03T00:00:00Z"]);
  });

  it("fixedIn: the commit an AGREE reply names, also after GitHub's quote of a conversation comment", () => {
    expect(fixedIn(replyBody("review-1", "AGREE", "Fixed in abc1234: done."))).toBe("abc1234");
    expect(fixedIn(`> @lead wrote:\n> x\n\n${replyBody("issue-1", "AGREE", "Already addressed in def5678: yes.")}`)).toBe("def5678");
    expect(fixedIn(replyBody("review-1", "AGREE", "Good idea; I made no change."))).toBeUndefined();
    expect(fixedIn(replyBody("review-1", "AGREE", "I will do it. Fixed in abc1234"))).toBeUndefined();
  });
});
