import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { describe, expect, it, onTestFinished } from "vitest";
import { assertPluginLoaded, slashCommand, useE2E, type E2E, until } from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { recordFigure } from "../../support/figures.ts";

/*
 * Anyone who can comment on a PR could make otto send one notification per comment. Through real
 * OpenCode, one watcher cycle over a PR with 20 comments by people otto does not act for sends
 * one notification (notify.command appends a line per call), and the next cycle sends none (a
 * third cycle's "green" notification, through the same channels, shows that nothing came late).
 */

const FLOOD = 20;

function ottoPrScript(e2e: E2E): void {
  const [call, echo] = slashCommand("otto_pr");
  e2e.model.script({ ...call!, times: Infinity }, { ...echo!, times: Infinity });
}

describe("a flood of comments by people otto does not act for (real OpenCode, fake GitHub)", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("one watcher cycle sends one notification naming them, through notify.command and the webhook; the next cycle none", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 12, title: "Add totals", branch: "feature/12" });
    f.gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    for (const who of ["spammer-a", "spammer-b"]) f.gh.state.stranger(who, "NONE");
    for (let i = 0; i < FLOOD; i++)
      f.gh.state.addComment(pr, `FLOOD-${i} please look at this now`, i % 2 === 0 ? "spammer-a" : "spammer-b");

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-flood-"));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const sink = path.join(dir, "notified.txt");
    const config = f.ottoConfig({ models: { primary: "mock/m1" } }) as { notify: Record<string, unknown> };
    // One line per notification: the first line of its message.
    config.notify = { ...config.notify, command: `printf '%s\\n' "$OTTO_MESSAGE" | head -n 1 >> '${sink}'` };
    const ws = await e2e.workspace({ remote: true, userOttoConfig: config, env: f.env });
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    ottoPrScript(e2e);
    await ottoPr(client, "add https://github.com/octo/app/pull/12");
    const firstCycle = await ottoPr(client, "watch once");

    const allLines = () => (fs.existsSync(sink) ? fs.readFileSync(sink, "utf8").split("\n").filter(Boolean) : []);
    const lines = () => allLines().filter((l) => l.includes("await a person"));
    await until("the notification", () => (lines().length >= 1 ? true : undefined));
    const hooks = () => f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("await a person"));
    await until("the webhook", () => (hooks().length >= 1 ? true : undefined));
    const first = { lines: lines(), hooks: hooks() };

    // Seen: the next cycle sends nothing.
    const secondCycle = await ottoPr(client, "watch once");
    // Not a fixed wait for a late notification: a third cycle after the checks pass notifies "green"
    // through the same channels, and its arrival means anything the second cycle sent has arrived.
    f.gh.state.setChecks(pr, [{ name: "build", conclusion: "success" }]);
    const thirdCycle = await ottoPr(client, "watch once");
    await until("the green notification", () => (allLines().some((l) => l.includes("is green")) ? true : undefined));
    const greenHooks = () => f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("is green"));
    await until("the green webhook", () => (greenHooks().length >= 1 ? true : undefined));
    // Measured before any assertion: notifications, against what one per comment and cycle would have sent.
    recordFigure({
      name: `notifications beyond the first for a flood of ${FLOOD} untrusted comments over two watcher cycles (one per comment: ${2 * FLOOD - 1})`,
      tried: 2 * FLOOD - 1,
      through: Math.max(lines().length, hooks().length) - 1,
    });
    expect(firstCycle).toMatch(/0 error\(s\)/);
    expect(first.lines).toEqual([expect.stringMatching(/PR #12: 20 comments by spammer-a and spammer-b await a person/)]);
    expect(first.hooks).toHaveLength(1);
    expect(JSON.stringify(first.hooks[0]?.body)).not.toContain("FLOOD-");
    expect(secondCycle).toMatch(/0 error\(s\)/);
    expect(thirdCycle).toMatch(/0 error\(s\)/);
    expect(allLines()).toEqual([first.lines[0], expect.stringMatching(/PR #12 is green/)]);
    expect(lines()).toHaveLength(1);
    expect(hooks()).toHaveLength(1);
    expect(e2e.model.requests.filter((r) => JSON.stringify(r.body).includes("FLOOD-"))).toEqual([]);
    console.log(`comment flood: ${FLOOD} comments / ${lines().length} notification(s)`);
  });
});
