import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, hang, slashCommand, useE2E, type Workspace, until, freePort } from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { analysis, BRANCH, cloneOfPr, isFix, KEY, PR_URL, summary } from "../pr/fix-script.ts";

/*
 * The watcher inside `opencode serve`, two tracked PRs on the fake GitHub: PR 1 is red and its fix
 * session hangs (the scripted model never answers); PR 2 goes green meanwhile and still gets its
 * success comment. `watch stop` cancels the hanging fix (its model request is aborted) and waits.
 */

const readDoc = (ws: Workspace, key: string) => fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "prs", `${key}.md`), "utf8");
const statusOf = (ws: Workspace, key: string) => /\nstatus: (\w+)\n/.exec(readDoc(ws, key))?.[1];

describe("the watcher's fixes run beside its cycles", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("a hanging fix of one PR does not stop the other PR's polling; watch stop cancels it and waits", async () => {
    const f = await forges();
    const red = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(red, [{ name: "unit", conclusion: "failure", log: "FAIL test/math.test.js\nexpected 3, received -1" }]);
    const other = f.gh.state.addPr({ number: 2, title: "Docs", branch: "feature/docs" });
    f.gh.state.setChecks(other, [{ name: "unit", status: "in_progress" }]);
    const ws = await e2e.workspace({
      userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" }, server: { poll_interval: "1s", port: await freePort() } }),
      env: f.env,
      remote: true,
    });
    await cloneOfPr(ws);
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      { ...slashCommand("otto_pr")[0]!, times: Infinity },
      { ...slashCommand("otto_pr")[1]!, times: Infinity },
      analysis(ws, summary("code: add() subtracts")),
      { label: "hanging fix", times: Infinity, match: isFix, reply: hang() },
    );
    await ottoPr(client, `add ${PR_URL}`);
    await ottoPr(client, "add https://github.com/octo/app/pull/2");

    expect(await ottoPr(client, "watch start")).toMatch(/^PR watcher running in this OpenCode process/);
    const fixRequest = await e2e.model.waitForRequest(isFix, 90_000);
    expect(statusOf(ws, KEY)).toBe("fixing");

    // While the fix hangs, PR 2 goes green: the next cycles poll it and post its success comment.
    f.gh.state.setChecks(other, [{ name: "unit" }]);
    await until("PR 2 to be seen green", () => statusOf(ws, "github-octo-app-2") === "green");
    expect(f.gh.state.comments.filter((c) => c.body.includes("all checks pass"))).toHaveLength(1);
    expect(fixRequest.endedAt).toBeUndefined();
    // PR 1 is still polled, and not handed a second fix: one fix session only.
    expect(e2e.model.requests.filter((r) => isFix(r) && r.lastRole !== "tool")).toHaveLength(1);

    // Stop cancels the fix: its model request is aborted, the fix is recorded as cancelled.
    expect(await ottoPr(client, "watch stop")).toMatch(/^Stopped the PR watcher of this OpenCode process/);
    expect(fixRequest.aborted).toBe(true);
    expect(statusOf(ws, KEY)).toBe("watching");
    expect(readDoc(ws, KEY)).toContain("### Cancelled");
    expect(readDoc(ws, KEY)).toContain("fixing → watching: fix cancelled");
    expect(e2e.model.inFlight()).toEqual([]);
  }, 240_000);
});
