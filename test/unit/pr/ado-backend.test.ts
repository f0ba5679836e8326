import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../src/pr/ado/backend.ts";
import type { PrBackend } from "../../../src/pr/index.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../support/fake-ado/index.ts";
import { buildOnBranch } from "../../support/fake-ado/branch-builds.ts";
import { postedBody, testConfig, testDeps } from "./support.ts";

const locator = (number: number) => ({ provider: "ado" as const, repo: "contoso/payments/app", number });

describe("Azure DevOps backend against the fake Azure DevOps", () => {
  let ado: FakeAdo;
  let backend: PrBackend;
  const config = (extra: Record<string, unknown> = {}) =>
    testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT, ...extra } } } });
  beforeEach(async () => {
    ado = await startFakeAdo();
    backend = createAdoBackend(testDeps(config()));
  });
  afterEach(async () => ado.close());

  it("reads a PR and its build policies; other policies are not checks", async () => {
    const pr = ado.state.addPr({ id: 41, title: "Add auth", branch: "feature/auth" });
    ado.state.setChecks(pr, [{ name: "ci", result: "failed", log: "error TS2322: wrong type" }, { name: "lint" }]);
    const info = await backend.getPr(locator(41));
    expect(info).toMatchObject({
      number: 41,
      repo: "contoso/payments/app",
      state: "open",
      sourceBranch: "feature/auth",
      targetBranch: "main",
      headSha: pr.sourceCommit,
      title: "Add auth",
    });
    expect(info.url).toBe(`${ado.baseUrl}/contoso/payments/_git/app/pullrequest/41`);
    const status = await backend.getPipelineStatus(info);
    expect(status.state).toBe("failure");
    expect(status.checks.map((c) => [c.name, c.state])).toEqual([
      ["ci", "failure"],
      ["lint", "success"],
    ]);
    const logs = await backend.getBuildLogs(info, status.checks[0]?.logId ?? "");
    expect(logs).toContain("=== ci (failed) ===");
    expect(logs).toContain("error: Process completed with exit code 1.");
    expect(logs).toContain("error TS2322: wrong type");
    expect(logs).not.toContain("Syncing repository");
  });

  it("names a build policy without a display name from its build's definition, counts the source branch's own CI builds, and finds the target branch's builds by definition id", async () => {
    const pr = ado.state.addPr({ id: 43, title: "Add auth", branch: "feature/auth" });
    ado.state.setChecks(pr, [{ name: "ci", result: "failed" }]);
    for (const policy of ado.state.policies.get(pr.id) ?? []) policy.displayName = "";
    // A CI trigger on the branch itself, outside the policy: the head's build counts, an older commit's does not.
    buildOnBranch(ado.state, { branch: "feature/auth", name: "branch-ci", result: "failed", sha: pr.sourceCommit, definitionId: 7 });
    buildOnBranch(ado.state, { branch: "feature/auth", name: "old-ci", result: "failed", definitionId: 8 });
    const info = await backend.getPr(locator(43));
    const status = await backend.getPipelineStatus(info);
    expect(status.checks.map((c) => [c.name, c.state])).toEqual([
      ["branch-ci", "failure"],
      ["ci", "failure"],
    ]);
    // The target branch's build of the same definition (renamed since), found by the definition's id.
    const main = buildOnBranch(ado.state, { branch: "main", name: "ci (renamed)", result: "failed", definitionId: 1 });
    const ci = status.checks.find((c) => c.name === "ci")!;
    expect(await backend.baseCheck!(info, "ci", { logId: ci.logId })).toMatchObject({ state: "failure", logId: String(main.id) });
    // By name alone the renamed pipeline is not found.
    expect(await backend.baseCheck!(info, "ci")).toBeUndefined();
  });

  it("says who is a member of the project's teams, by identity id or sign-in name, never by display name; asks once per backend", async () => {
    const pr = ado.state.addPr({ id: 43 });
    ado.state.addThread(pr, { content: "Please rename this.", author: "Lead Dev" });
    ado.state.addThread(pr, { content: "Run this for me.", author: "Drive By" });
    ado.state.outsiders.add("Drive By");
    const info = await backend.getPr(locator(43));
    const comments = await backend.getComments(info);
    const lead = comments.find((c) => c.author === "Lead Dev");
    expect(lead).toMatchObject({ authorLogin: "lead.dev@contoso.com", authorId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown });
    const access = await backend.authorAccess(info, comments);
    expect([...access.values()].sort()).toEqual(["none", "write"]);
    expect(access.get(lead?.authorId ?? "")).toBe("write");
    // Someone who took a member's display name is still not a member.
    const impostor = await backend.authorAccess(info, [{ author: "Lead Dev", authorId: "00000000-0000-0000-0000-000000000001" }]);
    expect([...impostor.values()]).toEqual(["none"]);
    const teamCalls = ado.calls.filter((c) => c.path.includes("/_apis/projects/"));
    expect(teamCalls.map((c) => [c.path.replace(/^.*\/teams/, "teams"), c.query["api-version"], c.status])).toEqual([
      ["teams", "7.1-preview.3", 200],
      [`teams/${ado.state.team.id}/members`, "7.1-preview.2", 200],
    ]);
  });

  it("falls back to the PR's merge builds without build policies", async () => {
    const pr = ado.state.addPr({ id: 42 });
    ado.state.setChecks(pr, [{ name: "ci", status: "inProgress" }], { policies: false });
    const info = await backend.getPr(locator(42));
    expect(await backend.getPipelineStatus(info)).toMatchObject({ state: "pending", checks: [{ name: "ci", state: "pending" }] });
    expect(ado.calls.some((c) => c.path.endsWith("/_apis/build/builds") && c.query.branchName === "refs/pull/42/merge")).toBe(true);
  });

  it("maps completed and abandoned PRs", async () => {
    ado.state.complete(ado.state.addPr({ id: 43 }));
    ado.state.abandon(ado.state.addPr({ id: 44 }));
    expect((await backend.getPr(locator(43))).state).toBe("merged");
    expect((await backend.getPr(locator(44))).state).toBe("abandoned");
  });

  it("lists, creates, answers and resolves threads, and sets auto-complete", async () => {
    const pr = ado.state.addPr({ id: 45 });
    const thread = ado.state.addThread(pr, { content: "Missing null check", filePath: "/src/a.ts", line: 12 });
    ado.state.addThread(pr, { content: "done already", status: "fixed" });
    const info = await backend.getPr(locator(45));
    const comments = await backend.getComments(info);
    expect(comments.map((c) => [c.id, c.kind, c.path, c.line, c.resolved])).toEqual([
      [`${thread.id}/1`, "inline", "src/a.ts", 12, false],
      [expect.stringMatching(/\/1$/), "conversation", undefined, undefined, true],
    ]);
    await backend.replyToComment(info, `${thread.id}/1`, "Fixed in abc1234");
    await backend.resolveComment(info, `${thread.id}/1`, "wont_fix");
    expect(thread.comments.at(-1)).toMatchObject({ content: postedBody("Fixed in abc1234"), parentCommentId: 1 });
    expect(thread.status).toBe("wontFix");
    for (const [resolution, status] of [
      ["by_design", "byDesign"],
      ["closed", "closed"],
      ["active", "active"],
      ["resolved", "fixed"],
    ] as const) {
      await backend.resolveComment(info, `${thread.id}/1`, resolution);
      expect(thread.status).toBe(status);
    }
    await backend.postComment(info, "otto: green");
    expect(ado.state.threads.at(-1)).toMatchObject({ status: "closed", comments: [{ content: postedBody("otto: green") }] });
    // Edited in place (otto's CI state comment): only the author may, as on Azure DevOps.
    const own = ado.state.threads.at(-1)!;
    await backend.editComment?.(info, `${own.id}/1`, "otto: state v2");
    expect(own.comments[0]?.content).toBe("otto: state v2");
    await expect(backend.editComment?.(info, `${thread.id}/1`, "not mine")).rejects.toThrow();
    await backend.postInlineComment(info, { path: "src/b.ts", line: 3, side: "RIGHT", body: "note" });
    expect(ado.state.threads.at(-1)).toMatchObject({ status: "active", filePath: "/src/b.ts", line: 3 });
    expect(await backend.runWorkflow(info, "auto_complete")).toMatchObject({ done: true });
    expect(pr.autoCompleteSetBy?.id).toBe(ado.state.me.id);
    const off = createAdoBackend(testDeps(config({ auto_complete: false })));
    expect(await off.runWorkflow(info, "auto_complete")).toMatchObject({ done: false });
  });

  it("reports bad credentials and a missing PAT clearly, and uses az when there is no PAT", async () => {
    const wrong = createAdoBackend(testDeps(config({ pat: "wrong-pat-value-123" })));
    await expect(wrong.getPr(locator(1))).rejects.toMatchObject({ code: "pr_auth" });
    // No PAT and no az: the request goes anonymous, and the answer names the missing credentials.
    const noneDeps = testDeps(testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl } } } }));
    const none = createAdoBackend(noneDeps);
    await expect(none.getPr(locator(1))).rejects.toMatchObject({
      code: "pr_no_token",
      message: expect.stringMatching(
        /^Azure DevOps answered 20\d for GET .*, and otto found no Azure DevOps credentials \(pr\.providers\.ado\.pat, OTTO_ADO_PAT or `az account get-access-token`\): only a public project can be read without them\.$/,
      ) as unknown,
      fix: expect.stringContaining("Set OTTO_ADO_PAT") as unknown,
    });
    expect(ado.calls.at(-1)?.status).toBe(203);
    // az was asked once for the backend, not once per request.
    await none.getPr(locator(1)).catch(() => undefined);
    expect(noneDeps.execCalls.map((c) => c.file)).toEqual(["az"]);
    const entra = await startFakeAdo({ bearer: "eyJ0eXAiOiJKV1Q.entra" });
    try {
      entra.state.addPr({ id: 7 });
      const deps = testDeps(testConfig({ pr: { providers: { ado: { base_url: entra.baseUrl } } } }), {
        cli: { az: { exitCode: 0, stdout: "eyJ0eXAiOiJKV1Q.entra\n" } },
      });
      expect((await createAdoBackend(deps).getPr(locator(7))).number).toBe(7);
      expect(deps.execCalls[0]?.args).toContain("499b84ac-1321-427f-aa17-267ca6975798");
    } finally {
      await entra.close();
    }
    await expect(backend.getPr(locator(999))).rejects.toMatchObject({
      code: "pr_not_found",
      message: expect.stringContaining("Either it does not exist, or the PAT's user cannot see the project.") as unknown,
      fix: expect.stringContaining("that the PAT's user is a member of the project") as unknown,
    });
  });

  it("reports the 203 sign-in page Azure DevOps serves for an unknown PAT as an auth error, not a parse error", async () => {
    const signIn = await startFakeAdo({ badCredentials: 203 });
    try {
      signIn.state.addPr({ id: 8 });
      const deps = testDeps(testConfig({ pr: { providers: { ado: { base_url: signIn.baseUrl, pat: "expired-pat-value-456" } } } }));
      const error = await createAdoBackend(deps)
        .getPr(locator(8))
        .catch((e: unknown) => e);
      expect(signIn.calls.map((c) => c.status)).toEqual([203]);
      expect(error).toMatchObject({
        code: "pr_auth",
        message: expect.stringMatching(
          /^Azure DevOps rejected the credentials for GET \/contoso\/payments\/_apis\/git\/pullrequests\/8 \(203\): the PAT is wrong, expired or revoked, or made for another organization\.$/,
        ) as unknown,
        fix: expect.stringContaining("Check OTTO_ADO_PAT") as unknown,
      });
      // Not retried: a wrong PAT does not get better by asking again.
      expect(deps.sleeps).toEqual([]);
    } finally {
      await signIn.close();
    }
  });

  it("honours Retry-After on 429 and retries server errors and timeouts", async () => {
    ado.state.addPr({ id: 46 });
    const deps = testDeps(config());
    const quick = createAdoBackend({
      ...deps,
      config: testConfig({ pr: { request_timeout: "300ms", providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } }),
    });
    ado.faults({ rate: 0.5, kinds: ["500", "rate_limit", "timeout"], seed: 5 });
    for (let i = 0; i < 10; i++) expect((await quick.getPr(locator(46))).number).toBe(46);
    expect(new Set(ado.calls.filter((c) => c.fault).map((c) => c.fault))).toEqual(new Set(["500", "rate_limit", "timeout"]));
    // Retry-After: 1 (second), scaled by retryBaseMs (2 ms in tests) like Octokit's retryAfterBaseValue.
    expect(deps.sleeps).toContain(2);
  });
});
