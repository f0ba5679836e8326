import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withWorkLock } from "../../../src/workspace/index.ts";
import { slashCommand, useE2E } from "../../support/index.ts";
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
  summary,
  analysis,
  fixer,
  fixReview,
} from "../pr/fix-script.ts";

/*
 * One job per working tree, across processes: while this test process holds the work lock of the
 * PR's tree (the same lock file otto uses, under the workspace's XDG_DATA_HOME), `/otto-pr fix` in
 * a served OpenCode (another process) reports the tree busy and changes nothing; once the lock is
 * released it fixes. The headless `opencode run` path is the `/pr-review --loop` test's.
 */

const JOB_LOG = [
  "FAIL test/math.test.js",
  "  ● add › adds two numbers: expected 3, received -1",
  "##[error]Process completed with exit code 1.",
].join("\n");

describe("one job per working tree, across processes", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("/otto-pr fix reports a tree held by another process as busy and changes nothing; after the release it fixes", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }), env: f.env, remote: true });
    // The project is the PR's clone; its pushes land in the bare repository.
    await cloneOfPr(ws);
    e2e.model.script(
      { ...slashCommand("otto_pr")[0]!, times: Infinity },
      { ...slashCommand("otto_pr")[1]!, times: Infinity },
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, FIXED),
    );
    // One served OpenCode for the three commands: its start is most of each command's time.
    const { client } = await e2e.serve(ws);
    expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR #1");
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    const lockEnv = { XDG_DATA_HOME: ws.dirs.dataHome };

    // Another process (this test) is at work in the PR's tree.
    const held = await withWorkLock(
      ws.project,
      "the review loop of PR #1 (a test)",
      // ottoPr throws unless the tool completed (the served counterpart of exit code 0).
      () => ottoPr(client, `fix ${KEY}`),
      { env: lockEnv },
    );
    expect(held.busy).toBe(false);
    const busy = held.busy ? "" : held.value;
    expect(busy).toContain(`## otto-pr fix: ${KEY} (busy)`);
    expect(busy).toContain(`is busy with the review loop of PR #1 (a test) (pid ${process.pid}`);
    expect(busy).toContain("nothing was changed");
    // Nothing happened: no session asked the model, no log downloaded, nothing pushed, no attempt counted.
    expect(e2e.model.requests.filter((r) => isAnalysis(r) || isFix(r))).toEqual([]);
    expect(f.gh.calls.some((c) => c.path.includes("/actions/jobs/"))).toBe(false);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(fs.readFileSync(path.join(ws.project, "src/math.js"), "utf8")).toBe(BROKEN);
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    expect(field(ws, "fix_attempts")).toBe("0");
    expect(field(ws, "status")).toBe("watching");
    expect(readDoc(ws)).not.toContain("### Attempt");
    expect(readDoc(ws)).toMatch(/fixing → watching: the working tree .* is busy with the review loop of PR #1 \(a test\)/);

    // Released: the same command fixes and pushes.
    expect(await ottoPr(client, `fix ${KEY}`)).toContain(`## otto-pr fix: ${KEY} (pushed)`);
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(before);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(field(ws, "fix_attempts")).toBe("1");
    // The fix let go of the tree: the lock is free again.
    expect(await withWorkLock(ws.project, "a test", async () => "free", { env: lockEnv })).toEqual({ busy: false, value: "free" });
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("/pr-review --loop refuses a tree another process holds, naming the holder, before any model call or comment", async () => {
    const f = await forges();
    f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    const config = f.ottoConfig({ models: { reviewers: ["mock/m1", "mock/m2"], primary: "mock/m1" } });
    const ws = await e2e.workspace({ userOttoConfig: config, env: f.env, remote: true });
    await ws.repo.git(["checkout", "-q", "-b", BRANCH]);
    await ws.repo.commit("Add math", { "src/math.js": BROKEN });
    await ws.repo.git(["push", "-q", "-u", "origin", BRANCH]);
    await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, "https://github.com/octo/app"]);
    await ws.repo.git(["remote", "set-url", "origin", "https://github.com/octo/app"]);
    e2e.model.script(
      { ...slashCommand("otto_pr_review")[0]!, times: Infinity },
      { ...slashCommand("otto_pr_review")[1]!, times: Infinity },
    );

    const held = await withWorkLock(
      ws.project,
      "the fix flow of github-octo-app-1 (PR watcher)",
      // A fix at work leaves the tree dirty: the loop must say "busy", not "stash your changes".
      async () => {
        fs.writeFileSync(path.join(ws.project, "src/math.js"), FIXED);
        return e2e.run(ws, ["run", "--command", "pr-review", "--", PR_URL, "--loop"], { timeoutMs: 120_000 });
      },
      { env: { XDG_DATA_HOME: ws.dirs.dataHome } },
    );
    const out = held.busy ? "" : `${held.value.stdout}\n${held.value.stderr}`;
    expect(out).toContain(`is busy: the fix flow of github-octo-app-1 (PR watcher) (pid ${process.pid}`);
    expect(out).toContain("Wait for that job to finish, then run /pr-review --loop again");
    expect(out).not.toContain("Commit or stash them");
    // Nothing was posted; only the slash command's own turns are scripted, so a reviewer's request would be unmatched.
    expect(f.gh.state.comments).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
