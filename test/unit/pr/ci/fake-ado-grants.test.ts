import { afterEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../../src/pr/ado/backend.ts";
import { AZURE_BUILD_SERVICE_PERMISSIONS } from "../../../../src/pr/ci/init/index.ts";
import { BUILD_SERVICE_DEFAULTS, FAKE_ADO_PAT, startFakeAdo, type AdoGrants, type FakeAdo } from "../../../support/fake-ado/index.ts";
import { testConfig, testDeps } from "../support.ts";

/* The fake Azure DevOps as a build identity's token meets it: what the grants allow answers, the rest is refused as Azure refuses it. */

describe("fake Azure DevOps: the build identity's grants", () => {
  const open: FakeAdo[] = [];
  afterEach(async () => {
    for (const f of open.splice(0)) await f.close();
  });
  async function backendWith(identity: AdoGrants) {
    const ado = await startFakeAdo({ identity });
    open.push(ado);
    const config = testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } });
    const backend = createAdoBackend(testDeps(config));
    const pr = ado.state.addPr({ id: 7 });
    ado.state.addThread(pr, { content: "Why?", author: "Alice" });
    return { ado, backend, info: await backend.getPr({ provider: "ado", repo: "contoso/payments/app", number: 7 }) };
  }
  const auth = { authorization: `Basic ${Buffer.from(`:${FAKE_ADO_PAT}`).toString("base64")}` };

  it("a build service with its defaults reads the PR but may not post; with the permissions ci init asks for it may", async () => {
    const bare = await backendWith({ scope: "project", project: "payments", permissions: BUILD_SERVICE_DEFAULTS });
    expect(await bare.backend.getComments(bare.info)).toHaveLength(1);
    await expect(bare.backend.postComment(bare.info, "hello")).rejects.toThrow(/403|PullRequestContribute/);
    expect(bare.ado.state.threads).toHaveLength(1);

    const granted = await backendWith({
      scope: "project",
      project: "payments",
      permissions: [...BUILD_SERVICE_DEFAULTS, ...AZURE_BUILD_SERVICE_PERMISSIONS],
    });
    await granted.backend.postComment(granted.info, "hello");
    expect(granted.ado.state.threads.map((t) => t.comments[0]?.content.split("\n")[0])).toEqual(["Why?", "hello"]);
  });

  it("a project-scoped token reaching another project gets 401; a collection-scoped one gets to the project check", async () => {
    const project = await backendWith({ scope: "project", project: "payments", permissions: BUILD_SERVICE_DEFAULTS });
    const other = await fetch(`${project.ado.baseUrl}/contoso/billing/_apis/git/pullrequests/7?api-version=7.1`, { headers: auth });
    expect(other.status).toBe(401);
    expect(await other.text()).toContain("TF400813");
    const collection = await backendWith({ scope: "collection", project: "payments", permissions: BUILD_SERVICE_DEFAULTS });
    const there = await fetch(`${collection.ado.baseUrl}/contoso/billing/_apis/git/pullrequests/7?api-version=7.1`, { headers: auth });
    // The fake has one project: past the scope, the other project does not exist.
    expect(there.status).toBe(404);
    const builds = await fetch(`${collection.ado.baseUrl}/contoso/payments/_apis/build/builds/1?retry=true&api-version=7.1`, {
      method: "PATCH",
      headers: { ...auth, "content-type": "application/json" },
      body: "{}",
    });
    expect(builds.status).toBe(403);
  });
});
