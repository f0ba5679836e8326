import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../src/pr/ado/backend.ts";
import type { PrBackend } from "../../../src/pr/index.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../support/fake-ado/index.ts";
import { testConfig, testDeps } from "./support.ts";

/*
 * runWorkflow(pr, "rerun_failed") on Azure DevOps: a failed build policy is re-queued (the PR
 * page's "Re-queue"), a failed merge build without policies gets "Rerun failed jobs". The fake
 * records both and changes its state the way the service does.
 */

const locator = (number: number) => ({ provider: "ado" as const, repo: "contoso/payments/app", number });

describe("Azure DevOps re-run of failed CI", () => {
  let ado: FakeAdo;
  let backend: PrBackend;
  beforeEach(async () => {
    ado = await startFakeAdo();
    backend = createAdoBackend(testDeps(testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } })));
  });
  afterEach(async () => ado.close());

  const patches = () => ado.calls.filter((c) => c.method === "PATCH").map((c) => ({ path: c.path, query: c.query, status: c.status }));

  it("re-queues each failed build policy and only those: the policies then track new builds", async () => {
    const pr = ado.state.addPr({ id: 51 });
    ado.state.setChecks(pr, [{ name: "ci", result: "failed" }, { name: "lint" }, { name: "e2e", result: "canceled" }]);
    const [ci, lint, e2e] = ado.state.policies.get(51) ?? [];
    const oldBuilds = [ci?.buildId, e2e?.buildId];
    const info = await backend.getPr(locator(51));

    const result = await backend.runWorkflow(info, "rerun_failed");
    expect(result.done).toBe(true);
    expect(result.message).toContain("re-queued the build policy 'ci'");
    expect(result.message).toContain("re-queued the build policy 'e2e'");
    expect(ado.state.requeued).toEqual([ci?.evaluationId, e2e?.evaluationId]);
    expect(ado.state.retried).toEqual([]);
    expect(patches()).toEqual([
      { path: `/contoso/payments/_apis/policy/evaluations/${ci?.evaluationId}`, query: { "api-version": "7.1-preview.1" }, status: 200 },
      { path: `/contoso/payments/_apis/policy/evaluations/${e2e?.evaluationId}`, query: { "api-version": "7.1-preview.1" }, status: 200 },
    ]);
    // New builds of the current merge commit, queued by the policies; the green one untouched.
    expect([ci?.status, e2e?.status, lint?.status]).toEqual(["queued", "queued", "approved"]);
    expect([ci?.buildId, e2e?.buildId]).not.toEqual(oldBuilds);
    expect((await backend.getPipelineStatus(info)).state).toBe("pending");
  });

  it("retries the failed jobs of the newest failed merge build per pipeline when there are no policies", async () => {
    const pr = ado.state.addPr({ id: 52 });
    ado.state.setChecks(pr, [{ name: "ci", result: "failed" }], { policies: false });
    const stale = ado.state.builds.find((b) => b.prId === 52);
    // A newer run of the same pipeline failed too: only the newest counts (as in getPipelineStatus).
    ado.state.setChecks(pr, [{ name: "ci", result: "failed" }, { name: "lint" }], { policies: false });
    const newest = ado.state.builds.filter((b) => b.prId === 52 && b.definition.name === "ci").at(-1);
    const info = await backend.getPr(locator(52));

    const result = await backend.runWorkflow(info, "rerun_failed");
    expect(result).toEqual({ done: true, message: `Azure DevOps retried the failed jobs of build ${newest?.id} (ci).` });
    expect(ado.state.retried).toEqual([newest?.id]);
    expect(patches()).toEqual([
      { path: `/contoso/payments/_apis/build/builds/${newest?.id}`, query: { retry: "true", "api-version": "7.1" }, status: 200 },
    ]);
    expect(newest?.status).toBe("inProgress");
    expect(stale?.result).toBe("failed");
    expect(await backend.getPipelineStatus(info)).toMatchObject({ state: "pending" });
  });

  it("does nothing when nothing failed, and says why", async () => {
    const pr = ado.state.addPr({ id: 53 });
    ado.state.setChecks(pr, [{ name: "ci" }]);
    const info = await backend.getPr(locator(53));
    expect(await backend.runWorkflow(info, "rerun_failed")).toEqual({ done: false, message: "PR 53 has no failed build to re-run." });
    expect(patches()).toEqual([]);
  });

  it("cannot re-run a status check posted by an external service", async () => {
    const pr = ado.state.addPr({ id: 54 });
    ado.state.setChecks(pr, [{ name: "ci" }]);
    ado.state.policies.get(54)?.push({
      evaluationId: "3f2a1b9c-0d4e-4f5a-8b6c-7d8e9f0a1b2c",
      configurationId: 77,
      kind: "status",
      displayName: "sonar/quality-gate",
      status: "rejected",
    });
    const info = await backend.getPr(locator(54));
    const result = await backend.runWorkflow(info, "rerun_failed");
    expect(result.done).toBe(false);
    expect(result.message).toMatch(/status checks posted by an external service/);
    expect(patches()).toEqual([]);
  });

  it("reports a retry the service keeps failing, and still retries the others", async () => {
    const pr = ado.state.addPr({ id: 55 });
    ado.state.setChecks(
      pr,
      [
        { name: "ci", result: "failed" },
        { name: "e2e", result: "failed" },
      ],
      { policies: false },
    );
    const [ci, e2e] = ado.state.builds.filter((b) => b.prId === 55);
    ado.faults({
      rate: 1,
      kinds: ["500"],
      maxConsecutive: 100,
      match: (c) => c.method === "PATCH" && c.path.endsWith(`/builds/${e2e?.id}`),
    });
    const info = await backend.getPr(locator(55));
    const result = await backend.runWorkflow(info, "rerun_failed");
    expect(result.done).toBe(true);
    expect(result.message).toMatch(
      new RegExp(
        `^Azure DevOps retried the failed jobs of build ${ci?.id} \\(ci\\)\\. Not re-run: retried the failed jobs of build ${e2e?.id} \\(e2e\\): .*server error \\(500\\)`,
      ),
    );
    expect(ado.state.retried).toEqual([ci?.id]);
  });
});
