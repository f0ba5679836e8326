import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../src/pr/ado/backend.ts";
import { createGithubBackend } from "../../../src/pr/github/backend.ts";
import { FAKE_ADO_PAT, FAKE_GITHUB_TOKEN, startFakeAdo, startFakeGithub, type FakeAdo, type FakeGithub } from "../../support/index.ts";
import { postedBody, testConfig, testDeps } from "../pr/support.ts";

/* PrBackend.postReview against the fake forges: one GitHub review, Azure DevOps threads. */

describe("postReview", () => {
  let gh: FakeGithub;
  let ado: FakeAdo;
  beforeAll(async () => {
    gh = await startFakeGithub();
    ado = await startFakeAdo();
  });
  afterAll(async () => {
    await gh.close();
    await ado.close();
  });

  it("GitHub: one review with every inline comment, at the given head; a line outside the diff is refused whole", async () => {
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const pr = gh.state.addPr({ number: 21 });
    pr.diffLines = { "src/a.ts": [3, 4] };
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 21 });
    expect(info.description).toBe("What this changes.");
    await backend.postReview(
      { ...info, headSha: "f".repeat(40) },
      {
        body: "review",
        comments: [
          { path: "src/a.ts", line: 3, side: "RIGHT", body: "one" },
          { path: "src/a.ts", line: 4, side: "RIGHT", body: "two" },
        ],
      },
    );
    const reviews = gh.calls.filter((c) => c.method === "POST" && c.path === "/repos/octo/app/pulls/21/reviews");
    expect(reviews).toHaveLength(1);
    expect(reviews[0]?.body).toMatchObject({ event: "COMMENT", body: postedBody("review"), commit_id: "f".repeat(40) });
    expect(gh.state.reviews.map((r) => [r.state, r.body])).toEqual([["COMMENTED", postedBody("review")]]);
    expect(gh.state.reviewComments.map((c) => [c.line, c.review_id])).toEqual([
      [3, gh.state.reviews[0]?.id],
      [4, gh.state.reviews[0]?.id],
    ]);
    await expect(
      backend.postReview(info, { body: "again", comments: [{ path: "src/a.ts", line: 9, side: "RIGHT", body: "far" }] }),
    ).rejects.toThrow();
    expect(gh.state.reviews).toHaveLength(1);
  });

  it("Azure DevOps: a thread per inline comment on its file and line, then the body as a closed thread", async () => {
    const backend = createAdoBackend(testDeps(testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } })));
    ado.state.addPr({ id: 77 });
    const info = await backend.getPr({ provider: "ado", repo: "contoso/payments", number: 77 });
    expect(info.description).toBe("What this changes.");
    await backend.postReview(info, {
      body: "summary",
      comments: [
        { path: "src/a.ts", line: 3, side: "RIGHT", body: "one" },
        { path: "/src/b.ts", line: 8, side: "RIGHT", body: "two" },
      ],
    });
    expect(ado.state.threads.filter((t) => t.prId === 77).map((t) => [t.filePath, t.line, t.status, t.comments[0]?.content])).toEqual([
      ["/src/a.ts", 3, "active", postedBody("one")],
      ["/src/b.ts", 8, "active", postedBody("two")],
      [undefined, undefined, "closed", postedBody("summary")],
    ]);
  });
});
