import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withWorkLock } from "../../../src/workspace/index.ts";
import { slashCommand, assertPluginLoaded, useE2E } from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import {
  BRANCH,
  PR_URL,
  KEY,
  BROKEN,
  FIXED,
  readDoc,
  field,
  cloneOfPr,
  isAnalysis,
  isFix,
  followUp,
  summary,
  analysis,
  fixer,
  fixReview,
} from "../pr/fix-script.ts";

/*
 * The watcher's fix when the PR's working tree is busy: while this test process holds the tree's
 * work lock (the same lock file otto uses, under the workspace's XDG_DATA_HOME), `/otto-pr watch
 * once` sees the red check and hands it to the fix flow, which defers: no session, no log download,
 * no push, no attempt counted, the PR back to watching. Once the lock is released, the next
 * `watch once` hands the same failure (same head SHA) to the fix flow again, which fixes and pushes.
 */

const JOB_LOG = [
  "FAIL test/math.test.js",
  "  ● add › adds two numbers: expected 3, received -1",
  "##[error]Process completed with exit code 1.",
].join("\n");
const HOLDER = "the comment flow of PR #1 (a test)";

describe("the watcher's fix on a busy working tree", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("watch once defers the fix while another process holds the tree (nothing done, not an attempt); after the release the next watch once fixes and pushes", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }), env: f.env, remote: true });
    // The project is the PR's clone; its pushes land in the bare repository.
    await cloneOfPr(ws);
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      { ...slashCommand("otto_pr")[0]!, times: Infinity },
      { ...slashCommand("otto_pr")[1]!, times: Infinity },
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, FIXED),
    );
    expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    const lockEnv = { XDG_DATA_HOME: ws.dirs.dataHome };

    // Another process (this test) is at work in the PR's tree while the watcher polls.
    const held = await withWorkLock(ws.project, HOLDER, () => ottoPr(client, "watch once"), { env: lockEnv });
    expect(held.busy).toBe(false);
    expect(held.busy ? "" : held.value).toContain(`| ${KEY} |`);
    // Deferred: no session asked the model, no log downloaded, nothing pushed or changed, no attempt counted.
    expect(e2e.model.requests.filter((r) => isAnalysis(r) || isFix(r))).toEqual([]);
    expect(f.gh.calls.some((c) => c.path.includes("/actions/jobs/"))).toBe(false);
    expect(f.gh.blobCalls).toEqual([]);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(fs.readFileSync(path.join(ws.project, "src/math.js"), "utf8")).toBe(BROKEN);
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    expect(fs.existsSync(path.join(ws.dirs.dataHome, "otto", "prs", KEY, "logs"))).toBe(false);
    expect(field(ws, "fix_attempts")).toBe("0");
    expect(field(ws, "status")).toBe("watching");
    const deferred = readDoc(ws);
    expect(deferred).toMatch(/watching → failed: pipeline failed: unit/);
    expect(deferred).toMatch(/failed → fixing \(watcher\): unit on /);
    expect(deferred).toContain(`fixing → watching: the working tree ${ws.project} is busy with ${HOLDER} (pid ${process.pid}`);
    expect(deferred).toContain("the failure is left for the next cycle");
    expect(deferred).not.toContain("### Attempt");
    expect(f.gh.state.comments).toEqual([]);

    // Released: same head SHA, same red check; the next poll hands the failure to the fix flow again.
    expect(f.gh.state.prs[0]?.head.sha).toBe(pr.head.sha);
    await ottoPr(client, "watch once");
    expect(e2e.model.requests.filter((r) => isAnalysis(r) && !followUp(r))).toHaveLength(1);
    expect(e2e.model.requests.filter((r) => isFix(r) && !followUp(r))).toHaveLength(1);
    const job = f.gh.state.checkRuns.find((r) => r.name === "unit")!;
    expect(f.gh.calls.some((c) => c.path.endsWith(`/actions/jobs/${job.id}/logs`))).toBe(true);
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(before);
    expect(log[0]?.subject).toBe("Add instead of subtract in add()");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(await ws.repo.gitRemote(["log", "-1", "--format=%B", BRANCH])).toContain(`Otto-Fix: ${KEY} attempt 1`);
    expect(field(ws, "fix_attempts")).toBe("1");
    expect(field(ws, "status")).toBe("watching");
    expect(field(ws, "fix_sha")).toBe(log[0]?.sha);
    const doc = readDoc(ws);
    expect(doc).toContain("### Attempt 1 — ");
    expect(doc).toContain("- **Trigger**: watcher: pipeline failed on");
    expect(doc.match(/→ fixing \(watcher\): unit on /g)).toHaveLength(2);
    // The fix let go of the tree: the lock is free again.
    expect(await withWorkLock(ws.project, "a test", async () => "free", { env: lockEnv })).toEqual({ busy: false, value: "free" });
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
