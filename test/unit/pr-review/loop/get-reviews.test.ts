import { afterEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../../src/pr/ado/backend.ts";
import { createGithubBackend } from "../../../../src/pr/github/backend.ts";
import { reviewStateOf } from "../../../../src/pr-review/loop/consensus.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../../support/fake-ado/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../../support/fake-github/index.ts";
import { testConfig, testDeps } from "../../pr/support.ts";

describe("getReviews: the review state the loop computes in code", () => {
  const open: Array<FakeGithub | FakeAdo> = [];
  afterEach(async () => {
    for (const server of open.splice(0)) await server.close();
  });

  it("GitHub: reviews with their author_association, oldest first", async () => {
    const gh = await startFakeGithub();
    open.push(gh);
    const pr = gh.state.addPr({ number: 5 });
    gh.state.addReview(pr, { author: "lead", state: "CHANGES_REQUESTED", association: "MEMBER" });
    gh.state.addReview(pr, { author: "friend", state: "APPROVED", association: "CONTRIBUTOR" });
    gh.state.addReview(pr, { author: "lead", state: "COMMENTED", association: "MEMBER" });
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 5 });
    const reviews = await backend.getReviews(info);
    expect(reviews.map((r) => [r.author, r.state, r.association])).toEqual([
      ["lead", "changes_requested", "MEMBER"],
      ["friend", "approved", "CONTRIBUTOR"],
      ["lead", "commented", "MEMBER"],
    ]);
    expect(reviews.every((r) => typeof r.submittedAt === "string")).toBe(true);
    expect(reviewStateOf(reviews)).toEqual({ hasChangesRequested: true, changesRequestedBy: [{ login: "lead", association: "MEMBER" }] });
  });

  it("Azure DevOps: votes -10 and -5 are changes requested, 10 and 5 approvals, 0 no review", async () => {
    const ado = await startFakeAdo();
    open.push(ado);
    const pr = ado.state.addPr({ id: 44 });
    const who = (name: string) => ({ id: `id-${name}`, displayName: name, uniqueName: `${name}@contoso.com` });
    ado.state.votes.set(pr.id, [
      { who: who("rejecter"), vote: -10 },
      { who: who("waiter"), vote: -5 },
      { who: who("approver"), vote: 10 },
      { who: who("suggester"), vote: 5 },
      { who: who("silent"), vote: 0 },
    ]);
    const backend = createAdoBackend(testDeps(testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } })));
    const info = await backend.getPr({ provider: "ado", repo: "contoso/payments/app", number: 44 });
    const reviews = await backend.getReviews(info);
    expect(reviews).toEqual([
      { author: "rejecter@contoso.com", association: "MEMBER", state: "changes_requested", note: "vote -10: rejected" },
      { author: "waiter@contoso.com", association: "MEMBER", state: "changes_requested", note: "vote -5: waiting for author" },
      { author: "approver@contoso.com", association: "MEMBER", state: "approved", note: "vote 10: approved" },
      { author: "suggester@contoso.com", association: "MEMBER", state: "approved", note: "vote 5: approved with suggestions" },
    ]);
    expect(reviewStateOf(reviews).changesRequestedBy.map((b) => b.login)).toEqual(["rejecter@contoso.com", "waiter@contoso.com"]);
  });
});
