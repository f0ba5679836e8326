import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, git, text, toolCall, useE2E } from "../../support/index.ts";
import { agentState, inDelivery, inTask, orchestratorScript, ottoAgent, readCrew, until, wakeWith } from "../crew/drive.ts";

describe("crew: human escalation, and agents in worktrees", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("@human and questions for the human toast, notify and top the status; a worktree agent is woken and completes", async () => {
    const ws = await e2e.workspace();
    const notified = path.join(ws.root, "notified.txt");
    ws.writeOttoConfig(
      {
        repos: [{ name: "app", primary_dir: ws.project }],
        notify: { command: `printf '%s|%s\\n' "$OTTO_EVENT" "$OTTO_MESSAGE" >> '${notified}'` },
      },
      "user",
    );
    const { client, events } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const otto = (await client.session.create({ body: { title: "orchestrator" }, throwOnError: true })).data;
    e2e.model.script(
      ...orchestratorScript(),
      {
        label: "kim asks the human",
        match: inTask("kim", "user"),
        reply: toolCall("otto_agent_ask", { question: "Should ids be UUIDs?", human: true }),
      },
      { label: "kim waits", match: inTask("kim", "tool"), reply: text("Waiting.") },
      {
        label: "kim completes",
        match: inDelivery("kim", "Use UUIDs", "user"),
        reply: toolCall("otto_agent_complete", { summary: "Schema uses UUIDs." }),
      },
      { label: "kim done", match: inDelivery("kim", "Use UUIDs", "tool"), reply: text("Done.") },
      {
        label: "lee says",
        match: inTask("lee", "user"),
        reply: toolCall("otto_agent_say", { message: "@human please check the README wording." }),
      },
      {
        label: "lee completes",
        match: (r) => inTask("lee", "tool")(r) && r.toolResults[0]?.content.startsWith("Posted") === true,
        reply: toolCall("otto_agent_complete", { summary: "README reviewed." }),
      },
      {
        label: "lee done",
        match: (r) => inTask("lee", "tool")(r) && r.toolResults[0]?.content.includes("task is done") === true,
        reply: text("Done."),
      },
    );

    const worktree = path.join(`${ws.project}-wt`, "kim-wt");
    const toasts = events.all.length;
    expect(await ottoAgent(client, otto.id, "spawn kim --worktree kim-wt Design the schema")).toContain(`in worktree ${worktree}`);
    const kimTurn = await e2e.model.waitForRequest(inTask("kim", "user"), 60_000);
    expect(kimTurn.system).toContain(worktree);
    const toast = await events.waitFor((e) => e.type === "tui.toast.show" && e.properties.message.includes("Should ids be UUIDs?"), {
      after: toasts,
      timeoutMs: 60_000,
    });
    expect(toast.type === "tui.toast.show" && toast.properties.title).toBe("otto crew: @kim needs a human");
    await until(
      "the notification command ran",
      () => fs.existsSync(notified) && fs.readFileSync(notified, "utf8").includes("@kim needs a human"),
    );
    expect(fs.readFileSync(notified, "utf8")).toContain("human_needed|");
    await e2e.model.waitForRequest(wakeWith("Should ids be UUIDs?"), 60_000);

    await ottoAgent(client, otto.id, "spawn lee Review the README");
    await events.waitFor((e) => e.type === "tui.toast.show" && e.properties.message.includes("README wording"), { timeoutMs: 60_000 });
    await until("lee done", () => agentState(ws, "lee") === "done");
    await e2e.model.waitForRequest(wakeWith("README reviewed."), 60_000);
    const status = await ottoAgent(client, otto.id, "status");
    expect(status).toContain("**Needs a human**: @kim (#1), @lee (#");
    const rows = status.split("\n").filter((l) => /^\| (kim|lee) \|/.test(l));
    expect(rows[0]).toMatch(/^\| kim \| blocked \(human\) \|.*NEEDS A HUMAN \(#1\): Should ids be UUIDs\?/);
    expect(rows[1]).toMatch(/^\| lee \| done \(human\) \|/);

    // otto relays the human's answer: kim, in its worktree's own OpenCode instance, resumes and completes.
    expect(await ottoAgent(client, otto.id, "prompt kim Use UUIDs")).toContain("to @kim");
    await e2e.model.waitForRequest(wakeWith("Schema uses UUIDs."), 60_000);
    await until("kim done", () => agentState(ws, "kim") === "done");
    const after = await ottoAgent(client, otto.id, "status");
    expect(after).toContain("**Needs a human**: @lee");
    expect(after).toMatch(/\| kim \| done \|/);

    const kim = readCrew(ws).agents.find((a) => a.name === "kim");
    expect(kim?.directory).toBe(worktree);
    expect(await git(["rev-parse", "--abbrev-ref", "HEAD"], worktree)).toBe("kim-wt");
    // The crew's files live in otto's data folder: the project stays clean, its git config untouched.
    const exclude = path.join(ws.project, ".git", "info", "exclude");
    expect(fs.existsSync(exclude) ? fs.readFileSync(exclude, "utf8") : "").not.toContain("/.otto/crew/");
    expect(await git(["status", "--porcelain"], ws.project)).toBe("");
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
