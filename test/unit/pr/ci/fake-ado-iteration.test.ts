import { afterEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../../src/pr/ado/backend.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../../support/fake-ado/index.ts";
import { testConfig, testDeps } from "../support.ts";

/* The fake Azure DevOps when a PR gets a new iteration: the superseded builds still running are cancelled, as Azure's autoCancel does, and the build policies queue new ones. */

describe("fake Azure DevOps: a new iteration of a PR", () => {
  let ado: FakeAdo | undefined;
  afterEach(async () => ado?.close());

  it("cancels the PR's running builds of the old merge commit, leaves finished ones, and queues the policies' builds of the new one", async () => {
    ado = await startFakeAdo();
    const pr = ado.state.addPr({ id: 9 });
    ado.state.setChecks(pr, [
      { name: "ci", result: "failed" },
      { name: "e2e", status: "inProgress" },
    ]);
    const [ci, e2e] = ado.state.builds.filter((b) => b.prId === 9);
    const backend = createAdoBackend(testDeps(testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } })));
    const locator = { provider: "ado" as const, repo: "contoso/payments/app", number: 9 };

    const cancelled = ado.state.newIteration(pr, "d".repeat(40));
    expect(cancelled.map((b) => b.id)).toEqual([e2e?.id]);
    expect(e2e).toMatchObject({ status: "completed", result: "canceled" });
    expect(ci).toMatchObject({ status: "completed", result: "failed" });
    // The PR is on the new head, and its checks are the new builds, not yet run.
    const info = await backend.getPr(locator);
    expect(info.headSha).toBe("d".repeat(40));
    const status = await backend.getPipelineStatus(info);
    expect(status.checks.map((c) => [c.name, c.state])).toEqual([
      ["ci", "pending"],
      ["e2e", "pending"],
    ]);
  });
});
