import { describe, expect, it } from "vitest";
import { slashCommand, assertPluginLoaded, useE2E } from "../../support/index.ts";
import type { AdoCheckSpec } from "../../support/fake-ado/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { readDoc, field, cloneOfPr, isAnalysis, isFix, followUp, analysis } from "../pr/fix-script.ts";

/*
 * The fix flow on Azure DevOps: real OpenCode running otto, the scripted model answering the
 * analysis session, the fake Azure DevOps with a failed build policy and its build log, and the
 * project as a clone of the PR's repository (pushes land in a bare repository on disk).
 */

const BRANCH = "feature/30";
const KEY = "ado-contoso-30";
const MATH = "export const add = (a, b) => a + b;\n";
const BUILD_LOG = [
  "Starting: npm test",
  "npm ERR! network ECONNRESET while fetching https://registry.npmjs.org/vitest",
  "##[error]Bash exited with code '1'.",
].join("\n");

const SUMMARY = `BEGIN_DOCUMENT\n# Pipeline Failure Summary\n\n## Verdict\ninfrastructure: the agent lost its connection to the npm registry\n\n## ci\n- **Kind**: network\n- **Root error**:\n  npm ERR! network ECONNRESET\nEND_DOCUMENT`;

describe("PR fix flow on Azure DevOps", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  /** PR 30 with `checks`, tracked by otto in a project that is a clone of the PR's branch. */
  async function setup(checks: AdoCheckSpec[], policies: boolean) {
    const f = await forges();
    const pr = f.ado.state.addPr({ id: 30, title: "Add math", branch: BRANCH });
    f.ado.state.setChecks(pr, checks, { policies });
    const ws = await e2e.workspace({ remote: true, userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }), env: f.env });
    const repoUrl = `${f.ado.baseUrl}/contoso/payments/_git/app`;
    await cloneOfPr(ws, { branch: BRANCH, repoUrl, files: { "src/math.js": MATH } });
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      { ...slashCommand("otto_pr")[0]!, times: Infinity },
      { ...slashCommand("otto_pr")[1]!, times: Infinity },
      analysis(ws, SUMMARY),
    );
    expect(await ottoPr(client, "add https://dev.azure.com/contoso/payments/_git/app/pullrequest/30")).toContain("Tracking PR");
    return { f, ws, client, before: (await ws.repo.remoteLog(BRANCH))[0]?.sha };
  }

  it("INFRASTRUCTURE: the failed build policy is re-queued, no attempt counted, no code session", async () => {
    const { f, ws, client, before } = await setup([{ name: "lint" }, { name: "ci", result: "failed", log: BUILD_LOG }], true);
    const policy = f.ado.state.policies.get(30)?.find((p) => p.displayName === "ci");
    const failedBuild = policy?.buildId;

    const out = await ottoPr(client, "fix");
    expect(out).toContain("(rerun)");
    expect(out).toContain("re-queued the build policy 'ci'");

    // The log reached the analysis session; the model never got a fix session.
    const read = e2e.model.requests.find((r) => isAnalysis(r) && followUp(r));
    expect(read?.toolResults[0]?.content).toContain("npm ERR! network ECONNRESET");
    expect(e2e.model.requests.some(isFix)).toBe(false);

    // The fake recorded exactly one re-queue, of the failed policy, with the preview api-version.
    const patches = f.ado.calls.filter((c) => c.method === "PATCH" && c.path.includes("/_apis/policy/evaluations/"));
    expect(patches.map((c) => [c.path, c.query["api-version"], c.status])).toEqual([
      [`/contoso/payments/_apis/policy/evaluations/${policy?.evaluationId}`, "7.1-preview.1", 200],
    ]);
    expect(f.ado.state.requeued).toEqual([policy?.evaluationId]);
    expect(policy?.status).toBe("queued");
    expect(policy?.buildId).not.toBe(failedBuild);

    // Not a fix attempt: nothing pushed, the document back to watching with a Re-run entry.
    expect(field(ws, "fix_attempts", KEY)).toBe("0");
    expect(field(ws, "status", KEY)).toBe("watching");
    expect(readDoc(ws, KEY)).toContain("### Re-run — ");
    expect(readDoc(ws, KEY)).toContain("Not counted as a fix attempt.");
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(f.hooks.calls.some((c) => JSON.stringify(c.body).includes("human_needed"))).toBe(false);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("INFRASTRUCTURE from the watcher, without build policies: the failed merge build's failed jobs are retried", async () => {
    const { f, ws, client, before } = await setup([{ name: "ci", result: "failed", log: BUILD_LOG }], false);
    const build = f.ado.state.builds.find((b) => b.prId === 30);

    expect(await ottoPr(client, "watch once")).toMatch(/1 PR\(s\) in [\d.]+ s, 0 error\(s\)/);
    const retries = f.ado.calls.filter((c) => c.method === "PATCH" && c.path.includes("/_apis/build/builds/"));
    expect(retries.map((c) => [c.path, c.query.retry, c.status])).toEqual([
      [`/contoso/payments/_apis/build/builds/${build?.id}`, "true", 200],
    ]);
    expect(f.ado.state.retried).toEqual([build?.id]);
    expect(build?.status).toBe("inProgress");
    expect(e2e.model.requests.some(isFix)).toBe(false);
    expect(field(ws, "fix_attempts", KEY)).toBe("0");
    expect(readDoc(ws, KEY)).toContain(`retried the failed jobs of build ${build?.id} (ci)`);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
