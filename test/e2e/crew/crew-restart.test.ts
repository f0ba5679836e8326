import { describe, expect, it } from "vitest";
import { assertPluginLoaded, hang, text, toolCall, useE2E } from "../../support/index.ts";
import { agentState, idle, inTask, orchestratorScript, ottoAgent, readCrew, until, wakeWith } from "../crew/drive.ts";

describe("crew: state survives an OpenCode restart, and the orchestrator's compaction keeps it", () => {
  const e2e = useE2E();

  it("reconciles the crew with the sessions that exist after a restart, whichever verb comes first; compaction carries the crew", async () => {
    const ws = await e2e.workspace();
    const first = await e2e.serve(ws);
    await assertPluginLoaded(first.client);
    const otto = (await first.client.session.create({ body: { title: "orchestrator" }, throwOnError: true })).data;
    e2e.model.script(
      ...orchestratorScript(),
      { label: "gina works forever", match: inTask("gina", "user"), reply: hang() },
      { label: "ivan asks", match: inTask("ivan", "user"), reply: toolCall("otto_agent_ask", { question: "Postgres or SQLite?" }) },
      { label: "ivan waits", match: inTask("ivan", "tool"), reply: text("Waiting.") },
      { label: "jo completes", match: inTask("jo", "user"), reply: toolCall("otto_agent_complete", { summary: "Changelog updated." }) },
      { label: "jo done", match: inTask("jo", "tool"), reply: text("Done.") },
      { label: "kim completes", match: inTask("kim", "user"), reply: toolCall("otto_agent_complete", { summary: "README tidied." }) },
      { label: "kim done", match: inTask("kim", "tool"), reply: text("Done.") },
      { label: "summary", match: { system: "summarization" }, reply: text("## Objective\n- Run the crew.") },
    );
    await ottoAgent(first.client, otto.id, "spawn gina Port the build to Bazel");
    await e2e.model.waitForRequest(inTask("gina", "user"), 60_000);
    await ottoAgent(first.client, otto.id, "spawn ivan Pick the database");
    await e2e.model.waitForRequest(wakeWith("Postgres or SQLite?"), 60_000);
    await ottoAgent(first.client, otto.id, "spawn jo Update the changelog");
    await e2e.model.waitForRequest(wakeWith("Changelog updated."), 60_000);
    await until("ivan blocked, jo done", () => agentState(ws, "ivan") === "blocked" && agentState(ws, "jo") === "done");
    const ivan = readCrew(ws).agents.find((a) => a.name === "ivan");
    await first.client.session.delete({ path: { id: ivan?.sessionID ?? "" }, throwOnError: true });

    await first.close();
    const second = await e2e.serve(ws);
    // The first verb after the restart is a spawn: it reconciles first, so the new process does not
    // take over a crew whose dead agents still look busy.
    expect(await ottoAgent(second.client, otto.id, "spawn kim Tidy the README")).toContain("Spawned @kim");
    // The failures are news for the orchestrator: it is woken with each.
    await e2e.model.waitForRequest(wakeWith("@gina failed: its session is idle after OpenCode restarted"), 60_000);
    await e2e.model.waitForRequest(wakeWith("@ivan failed: its session no longer exists"), 60_000);
    await e2e.model.waitForRequest(wakeWith("README tidied."), 60_000);
    await until("kim done", () => agentState(ws, "kim") === "done");
    await idle(second.client, otto.id);
    const status = await ottoAgent(second.client, otto.id, "status");
    expect(status).toContain("4 agents: 2 done, 2 failed");
    expect(status).toMatch(/\| gina \| failed \|.*idle after OpenCode restarted/);
    expect(status).toMatch(/\| ivan \| failed \|.*no longer exists/);
    expect(status).toMatch(/\| jo \| done \|.*Changelog updated/);
    expect(status).toMatch(/\| kim \| done \|.*README tidied/);
    // Shown by the first status, though the spawn did the reconciling.
    expect(status).toContain(
      "Reconciled with OpenCode's sessions after a restart:\n- gina: failed, its session is idle after OpenCode restarted",
    );
    expect(status).toContain("- ivan: failed, its session no longer exists");

    await second.client.session.summarize({ path: { id: otto.id }, body: { providerID: "mock", modelID: "m1" }, throwOnError: true });
    const compaction = await e2e.model.waitForRequest({ system: "summarization" }, 60_000);
    expect(compaction.lastUser).toContain("# Otto's state (keep it in the summary)");
    expect(compaction.lastUser).toMatch(/\| ivan \| failed \|/);
    expect(compaction.lastUser).toContain("`otto_agent`: the crew.");
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
