import { describe, expect, it } from "vitest";
import path from "node:path";
import { slashCommand, text, toolCall, useE2E, type ScriptEntry } from "../../support/index.ts";
import { useForges } from "../pr/forges.ts";
import { analysis, BRANCH, cloneOfPr, FIXED, followUp, isFix, KEY, PR_URL, readDoc, summary, fixReview } from "../pr/fix-script.ts";

/*
 * A headless run never hangs on a permission prompt: the watcher's fix session (no parent session,
 * nobody to answer) calls bash, which the user's config sets to "ask". Otto rejects the request
 * with a reason, the model reads it and goes on, and `watch once` finishes with the fix pushed.
 */

describe("permission asks in otto's unattended sessions", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("opencode run … watch once: the fix session's bash ask is denied with a reason, and the run finishes", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [
      { name: "unit", conclusion: "failure", log: "FAIL test/math.test.js\nadd › adds two numbers: expected 3, received -1" },
    ]);
    const ws = await e2e.workspace({
      userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }),
      env: f.env,
      remote: true,
      // The user wants to be asked before any command of otto's executor.
      config: { agent: { "otto-executor": { permission: { bash: "ask" } } } },
    });
    await cloneOfPr(ws);
    const fixer: ScriptEntry = {
      label: "fix asking for bash",
      times: Infinity,
      match: isFix,
      reply: (req) => {
        if (!followUp(req)) return toolCall("bash", { command: "npm test", description: "Run the tests" });
        if (req.toolResults.some((r) => r.content.includes("Denied by otto")))
          return toolCall("write", { filePath: path.join(ws.project, "src/math.js"), content: FIXED });
        return text("Changed src/math.js without running the tests.\nFix summary: Add instead of subtract in add()");
      },
    };
    e2e.model.script(
      { ...slashCommand("otto_pr")[0]!, times: Infinity },
      { ...slashCommand("otto_pr")[1]!, times: Infinity },
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer,
    );
    const add = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "add", PR_URL]);
    expect(add.stdout).toContain("Tracking PR #1");

    // Bounded: without the guard the fix session waits on the prompt until its 30 min task timeout.
    const run = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "watch", "once"], { timeoutMs: 120_000 });
    expect(run.timedOut, run.stderr).toBe(false);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`| ${KEY} |`);

    // The model was told why, in the tool result of its bash call, and went on to fix the code.
    const denied = e2e.model.requests.find((r) => isFix(r) && r.toolResults.some((t) => t.content.includes("Denied by otto")));
    expect(denied?.toolResults.map((t) => t.content).join("\n")).toContain("nobody can answer the permission prompt for bash (npm test)");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(readDoc(ws)).toContain("Attempt 1");
    // And otto logged what it denied.
    expect(ws.logs()).toContain("otto denied bash (npm test)");
  }, 180_000);
});
