import { afterEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../../src/pr/ado/backend.ts";
import { createGithubBackend } from "../../../../src/pr/github/backend.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../../support/fake-ado/index.ts";
import { buildOnBranch } from "../../../support/fake-ado/branch-builds.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../../support/fake-github/index.ts";
import { runOnBranch } from "../../../support/fake-github/branch-runs.ts";
import { testConfig, testDeps } from "../support.ts";

/*
 * baseCheck: the newest completed run of a check on the PR's target branch, read the way each
 * forge offers it (GitHub: completed workflow runs on the branch, then check runs of their
 * commits; Azure DevOps: the branch's completed builds).
 */

describe("the default branch's newest completed run of a check", () => {
  let gh: FakeGithub | undefined;
  let ado: FakeAdo | undefined;
  afterEach(async () => {
    await gh?.close();
    await ado?.close();
    gh = ado = undefined;
  });

  it("GitHub: the newest commit of main with a completed run of the check; its state, commit and job log", async () => {
    gh = await startFakeGithub();
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const pr = gh.state.addPr({ number: 3, base: "main" });
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 3 });
    expect(await backend.baseCheck?.(info, "unit")).toBeUndefined();

    runOnBranch(gh.state, { branch: "main", checks: [{ name: "unit" }] });
    const red = runOnBranch(gh.state, {
      branch: "main",
      checks: [{ name: "unit", conclusion: "failure", log: "FAIL x" }, { name: "lint" }],
    });
    // Another branch's runs do not count, nor does a commit whose run is still going.
    runOnBranch(gh.state, { branch: "release", checks: [{ name: "unit" }] });
    runOnBranch(gh.state, { branch: "main", checks: [{ name: "unit", status: "in_progress" }] });
    void pr;
    const found = await backend.baseCheck?.(info, "unit");
    const job = red.runs.find((r) => r.name === "unit")!;
    expect(found).toMatchObject({ state: "failure", sha: red.sha, logId: String(job.id) });
    expect(await backend.getBuildLogs(info, found?.logId ?? "")).toContain("FAIL x");
    expect(gh.contractProblems).toEqual([]);
    const runsCall = gh.calls.find((c) => c.path === "/repos/octo/app/actions/runs");
    expect(runsCall?.query).toMatchObject({ branch: "main", status: "completed" });
  });

  it("Azure DevOps: the newest completed build of the pipeline on refs/heads/<target>", async () => {
    ado = await startFakeAdo();
    const backend = createAdoBackend(testDeps(testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } })));
    const pr = ado.state.addPr({ id: 61 });
    const info = await backend.getPr({ provider: "ado", repo: "contoso/payments/app", number: 61 });
    expect(await backend.baseCheck?.(info, "ci")).toBeUndefined();
    buildOnBranch(ado.state, { branch: info.targetBranch, name: "ci" });
    const red = buildOnBranch(ado.state, { branch: info.targetBranch, name: "ci", result: "failed", log: "FAIL y" });
    buildOnBranch(ado.state, { branch: "other", name: "ci" });
    void pr;
    const found = await backend.baseCheck?.(info, "ci");
    expect(found).toMatchObject({ state: "failure", sha: red.sourceVersion, logId: String(red.id) });
    expect(await backend.getBuildLogs(info, found?.logId ?? "")).toContain("FAIL y");
    const call = ado.calls.find((c) => c.path.endsWith("/_apis/build/builds") && c.query.branchName === `refs/heads/${info.targetBranch}`);
    expect(call?.query).toMatchObject({ statusFilter: "completed" });
  });
});
