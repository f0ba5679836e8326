import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, text, toolCall, useE2E, type RecordedRequest, type ScriptEntry, type Workspace } from "../support/index.ts";
import type { AdoCheckSpec } from "../support/fake-ado/index.ts";
import { ottoPr, useForges } from "./pr/forges.ts";

/*
 * The fix flow on Azure DevOps: real OpenCode running otto, the scripted model answering the
 * analysis session, the fake Azure DevOps with a failed build policy and its build log, and the
 * project as a clone of the PR's repository (pushes land in a bare repository on disk).
 */

const BRANCH = "feature/30";
const KEY = "ado-contoso-30";
const MATH = "export const add = (a, b) => a + b;\n";
const BUILD_LOG = ["Starting: npm test", "npm ERR! network ECONNRESET while fetching https://registry.npmjs.org/vitest", "##[error]Bash exited with code '1'."].join("\n");

const readDoc = (ws: Workspace): string => fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "prs", `${KEY}.md`), "utf8");
const field = (ws: Workspace, name: string): string | undefined => new RegExp(`\\n${name}: '?([^'\\n]*)'?\\n`).exec(readDoc(ws))?.[1];

const isAnalysis = (req: RecordedRequest): boolean => req.lastUser.includes("Another engineer will fix it in a fresh session");
const isFix = (req: RecordedRequest): boolean => req.lastUser.includes("the failures have been analysed");
const followUp = (req: RecordedRequest): boolean => req.lastRole === "tool";

const SUMMARY = `BEGIN_DOCUMENT\n# Pipeline Failure Summary\n\n## Verdict\ninfrastructure: the agent lost its connection to the npm registry\n\n## ci\n- **Kind**: network\n- **Root error**:\n  npm ERR! network ECONNRESET\nEND_DOCUMENT`;

/** Phase 1: reads the log file the prompt names, then classifies the failure as infrastructure. */
function analysis(ws: Workspace): ScriptEntry {
  return {
    label: "analysis",
    times: Infinity,
    match: isAnalysis,
    reply: (req) => {
      if (followUp(req)) return text(SUMMARY);
      const file = /^- (\.otto\/pr-logs\/\S+\.log)$/m.exec(req.lastUser)?.[1];
      if (!file) throw new Error(`no log file in the analysis prompt:\n${req.lastUser}`);
      return toolCall("read", { filePath: path.join(ws.project, file) });
    },
  };
}

describe("PR fix flow on Azure DevOps", () => {
  const e2e = useE2E();
  const forges = useForges();

  /** PR 30 with `checks`, tracked by otto in a project that is a clone of the PR's branch. */
  async function setup(checks: AdoCheckSpec[], policies: boolean) {
    const f = await forges();
    const pr = f.ado.state.addPr({ id: 30, title: "Add math", branch: BRANCH });
    f.ado.state.setChecks(pr, checks, { policies });
    const ws = await e2e.workspace({ remote: true, userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }), env: f.env });
    const repoUrl = `${f.ado.baseUrl}/contoso/payments/_git/app`;
    await ws.repo.git(["checkout", "-q", "-b", BRANCH]);
    await ws.repo.commit("Add math", { "src/math.js": MATH });
    await ws.repo.git(["push", "-q", "-u", "origin", BRANCH]);
    await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, repoUrl]);
    await ws.repo.git(["remote", "set-url", "origin", repoUrl]);
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity }, analysis(ws));
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
    expect(patches.map((c) => [c.path, c.query["api-version"], c.status])).toEqual([[`/contoso/payments/_apis/policy/evaluations/${policy?.evaluationId}`, "7.1-preview.1", 200]]);
    expect(f.ado.state.requeued).toEqual([policy?.evaluationId]);
    expect(policy?.status).toBe("queued");
    expect(policy?.buildId).not.toBe(failedBuild);

    // Not a fix attempt: nothing pushed, the document back to watching with a Re-run entry.
    expect(field(ws, "fix_attempts")).toBe("0");
    expect(field(ws, "status")).toBe("watching");
    expect(readDoc(ws)).toContain("### Re-run — ");
    expect(readDoc(ws)).toContain("Not counted as a fix attempt.");
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(f.hooks.calls.some((c) => JSON.stringify(c.body).includes("human_needed"))).toBe(false);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("INFRASTRUCTURE from the watcher, without build policies: the failed merge build's failed jobs are retried", async () => {
    const { f, ws, client, before } = await setup([{ name: "ci", result: "failed", log: BUILD_LOG }], false);
    const build = f.ado.state.builds.find((b) => b.prId === 30);

    expect(await ottoPr(client, "watch once")).toMatch(/1 PR\(s\) in [\d.]+ s, 0 error\(s\)/);
    const retries = f.ado.calls.filter((c) => c.method === "PATCH" && c.path.includes("/_apis/build/builds/"));
    expect(retries.map((c) => [c.path, c.query.retry, c.status])).toEqual([[`/contoso/payments/_apis/build/builds/${build?.id}`, "true", 200]]);
    expect(f.ado.state.retried).toEqual([build?.id]);
    expect(build?.status).toBe("inProgress");
    expect(e2e.model.requests.some(isFix)).toBe(false);
    expect(field(ws, "fix_attempts")).toBe("0");
    expect(readDoc(ws)).toContain(`retried the failed jobs of build ${build?.id} (ci)`);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
