import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  assertPluginLoaded,
  slashCommand,
  text,
  toolCall,
  useE2E,
  type RecordedRequest,
  type ScriptEntry,
  type Step,
  type Workspace,
} from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { BRANCH, PR_URL, BROKEN, FIXED, analysis, cloneOfPr, isFix, summary, fixReview } from "../pr/fix-script.ts";
import { recordFigure } from "../../support/figures.ts";

/*
 * A session cannot reach OpenCode's own server: a session created there is one otto does not
 * guard, which could push. Through real OpenCode, the fix flow's session tries to create one on
 * the e2e's `opencode serve` (whose URL the plugin knows as its serverUrl) with curl in two host
 * spellings and with inline Node code; the model reads why it was refused, and the server's session
 * list has none of them. The same request from the test itself does create a session: the server
 * takes it, so only the guard stood in the way.
 */

const toolCount = (req: RecordedRequest): number => req.messages.filter((m) => m.role === "tool").length;

function session(ws: Workspace, commands: readonly string[]): ScriptEntry {
  return {
    label: "fix that calls OpenCode's server",
    times: Infinity,
    match: isFix,
    reply: (req): Step => {
      const done = toolCount(req);
      const command = commands[done];
      if (command !== undefined) return toolCall("bash", { command, description: "try something" }, `call_${done}`);
      if (done === commands.length)
        return toolCall("write", { filePath: path.join(ws.project, "src/math.js"), content: FIXED }, "call_write");
      return text("Changed src/math.js.\nFix summary: Add instead of subtract in add()");
    },
  };
}

describe("server guard: otto's sessions cannot call OpenCode's own server", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("curl and inline code to the serve URL are refused; no session is created on the server", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [
      { name: "unit", conclusion: "failure", log: "FAIL test/math.test.js\n● add › adds two numbers: expected 3, received -1" },
    ]);
    const config = f.ottoConfig({ models: { primary: "mock/m1" } });
    const ws = await e2e.workspace({
      userOttoConfig: { ...config, pr: { ...(config.pr as object), max_fix_attempts: 1 } },
      env: f.env,
      remote: true,
      files: { "src/math.js": BROKEN },
    });
    await cloneOfPr(ws);
    const serve = await e2e.serve(ws);
    const { client } = serve;
    await assertPluginLoaded(client);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");

    const url = serve.url.replace(/\/+$/, "");
    const port = new URL(url).port;
    const attempts = [
      `curl -s -X POST ${url}/session -H 'content-type: application/json' -d '{"title":"SNEAKY-1"}'`,
      `curl -s -X POST http://localhost:${port}/session -H 'content-type: application/json' -d '{"title":"SNEAKY-2"}'`,
      `node -e "fetch('http://127.0.0.1:${port}/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'SNEAKY-3' }) }).then((r) => r.text()).then(console.log)"`,
    ];
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), session(ws, attempts));
    const titles = async () => ((await client.session.list()).data ?? []).map((s) => s.title);
    const before = await titles();

    await ottoPr(client, "fix");

    // Measured before any assertion, so a regression shows in the bench as a number.
    const after = await titles();
    const created = after.filter((t) => t.startsWith("SNEAKY"));
    recordFigure({ name: "sessions' calls to the local OpenCode server", tried: attempts.length, through: created.length });
    const results = e2e.model.requests.filter((r) => isFix(r) && r.lastRole === "tool").map((r) => r.toolResults[0]?.content ?? "");
    for (const [i, attempt] of attempts.entries()) expect(results[i], attempt).toMatch(/Otto blocked this: .*OpenCode's own server/s);
    expect(created).toEqual([]);
    expect(after.length).toBeGreaterThanOrEqual(before.length);

    // The control: the same request, sent by the test, does create a session (the server takes unauthenticated requests).
    const control = await fetch(`${url}/session`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-opencode-directory": ws.project },
      body: JSON.stringify({ title: "CONTROL" }),
    });
    expect(control.status).toBe(200);
    expect(await titles()).toContain("CONTROL");
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
