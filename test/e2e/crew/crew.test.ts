import fs from "node:fs";
import path from "node:path";
import type { Event } from "@opencode-ai/sdk";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, error, text, toolCall, toolCalls, useE2E, type RecordedRequest } from "../../support/index.ts";
import { agentState, inDelivery, inTask, orchestratorScript, ottoAgent, readCrew, taskOf, until, wakes } from "../crew/drive.ts";

const crewTools = (req: RecordedRequest | undefined) => (req?.toolNames ?? []).filter((n) => n.startsWith("otto_"));

describe("crew: background agents inside a real opencode serve", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("agents talk, ask, get answers and complete; the orchestrator is woken each time; tools are scoped", async () => {
    const ws = await e2e.workspace();
    const { client, events } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const otto = (await client.session.create({ body: { title: "orchestrator" }, throwOnError: true })).data;
    e2e.model.script(
      ...orchestratorScript(),
      // alice asks, then stops; a mention from bob interrupts her; otto's answer lets her complete.
      {
        label: "alice asks",
        match: inTask("alice", "user"),
        reply: toolCall("otto_agent_ask", { question: "Which port should the API listen on?" }),
      },
      { label: "alice waits", match: inTask("alice", "tool"), reply: text("Waiting for an answer.") },
      { label: "alice hears bob", match: inDelivery("alice", "I will call your API", "user"), reply: text("Thanks, bob.") },
      {
        label: "alice completes",
        match: inDelivery("alice", "Use port 8080", "user"),
        reply: toolCall("otto_agent_complete", { summary: "API listens on port 8080 (src/api.ts)." }),
      },
      { label: "alice done", match: inDelivery("alice", "Use port 8080", "tool"), reply: text("Done.") },
      // bob (the build agent) mentions alice and completes in one turn.
      {
        label: "bob says and completes",
        match: inTask("bob", "user"),
        reply: toolCall("otto_agent_say", { message: "@alice I will call your API from the client." }),
      },
      {
        label: "bob completes",
        match: (r) => inTask("bob", "tool")(r) && r.toolResults[0]?.content.includes("woke @alice") === true,
        reply: toolCall("otto_agent_complete", { summary: "Client written in src/client.ts." }),
      },
      {
        label: "bob done",
        match: (r) => inTask("bob", "tool")(r) && r.toolResults[0]?.content.includes("task is done") === true,
        reply: text("Done."),
      },
    );

    const spawned = await ottoAgent(client, otto.id, "spawn alice Build the HTTP API");
    expect(spawned).toContain("Spawned @alice (agent otto-crew, mock/m1)");
    await e2e.model.waitForRequest(
      (r) => r.lastUser.startsWith("**Crew update**") && r.lastUser.includes("Which port should the API listen on?"),
      60_000,
    );
    await until("alice blocked", () => agentState(ws, "alice") === "blocked");

    const clash = await ottoAgent(client, otto.id, "spawn alice Something else");
    expect(clash).toContain("This crew already has an agent named 'alice'. Agents: alice (blocked).");

    expect(await ottoAgent(client, otto.id, "spawn bob --agent build Write the client")).toContain("Spawned @bob (agent build");
    await e2e.model.waitForRequest(inDelivery("alice", "I will call your API", "user"), 60_000);
    await e2e.model.waitForRequest(
      (r) => r.lastUser.startsWith("**Crew update**") && r.lastUser.includes("Client written in src/client.ts."),
      60_000,
    );
    await until("bob done, alice back to blocked", () => agentState(ws, "bob") === "done" && agentState(ws, "alice") === "blocked");

    expect(await ottoAgent(client, otto.id, "prompt alice Use port 8080")).toContain("to @alice");
    await e2e.model.waitForRequest(
      (r) => r.lastUser.startsWith("**Crew update**") && r.lastUser.includes("API listens on port 8080"),
      60_000,
    );
    await until("alice done", () => agentState(ws, "alice") === "done");

    const status = await ottoAgent(client, otto.id, "status");
    expect(status).toMatch(/\| alice \| done \|/);
    expect(status).toMatch(/\| bob \| done \|/);
    const stream = await ottoAgent(client, otto.id, "messages --all");
    expect(stream).toContain("bob: @alice I will call your API from the client.");
    expect(stream).toContain("otto → @alice: Use port 8080");

    // The wake-ups carried only what was new, and the crew's one-line state.
    const woken = wakes(e2e.model.requests);
    const question = woken.find((r) => r.lastUser.includes("Which port"));
    expect(question?.lastUser).toContain("alice asks: Which port should the API listen on?");
    expect(question?.lastUser).toMatch(/Crew: alice blocked/);
    const last = woken.find((r) => r.lastUser.includes("API listens on port 8080"));
    expect(last?.lastUser).not.toContain("Which port");

    // Crew tools only in the agents' sessions, whatever agent runs there; the orchestrator has /otto-agent's tool.
    const alice = e2e.model.requests.find(inTask("alice", "user"));
    expect(crewTools(alice).sort()).toEqual(["otto_agent_ask", "otto_agent_complete", "otto_agent_say"]);
    const bob = e2e.model.requests.find(inTask("bob", "user"));
    expect(crewTools(bob).sort()).toEqual(["otto_agent_ask", "otto_agent_complete", "otto_agent_say"]);
    expect(bob?.toolNames).not.toContain("question");
    expect(crewTools(question)).toContain("otto_agent");
    expect(crewTools(question)).not.toContain("otto_agent_say");
    // /otto-agent's own turns ran as its agent (otto.agent): otto_agent is all they carry. The
    // wake-ups after them run as the otto agent, with its crew prompt.
    const commandTurns = e2e.model.turns().filter((r) => r.lastUser.includes("<args>"));
    expect(commandTurns.length).toBeGreaterThan(0);
    for (const turn of commandTurns) expect(turn.toolNames).toEqual(["otto_agent"]);
    expect(question?.system).toContain("wake you with a **Crew update**");
    // Agents are child sessions of the orchestrator's.
    const children = events.all.filter(
      (e): e is Extract<Event, { type: "session.created" }> => e.type === "session.created" && e.properties.info.parentID === otto.id,
    );
    expect(children.map((e) => e.properties.info.title).sort()).toEqual(["otto crew: alice", "otto crew: bob"]);
    expect(readCrew(ws).orchestrator?.sessionID).toBe(otto.id);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a failing agent is reported; two events at once give two wake-ups, one after the other", async () => {
    const ws = await e2e.workspace();
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const otto = (await client.session.create({ body: { title: "orchestrator" }, throwOnError: true })).data;
    const go = path.join(ws.project, "crew-go");
    e2e.model.script(
      // One orchestrator turn spawns both agents, then stays busy (bash waits for a file the test
      // writes once both agents are done): both completions are queued behind that turn.
      {
        label: "spawn both",
        match: (r) => r.lastRole === "user" && r.lastUser.includes("<args>spawn dave"),
        reply: toolCalls([
          { name: "otto_agent", args: { args: "spawn dave Write the docs" } },
          { name: "otto_agent", args: { args: "spawn erin Write the tests" } },
        ]),
      },
      {
        label: "stay busy",
        match: (r) => r.lastRole === "tool" && r.toolResults.length === 2,
        reply: toolCall("bash", { command: "while [ ! -f crew-go ]; do sleep 0.1; done", description: "Wait for the signal" }),
      },
      {
        label: "spawned both",
        match: (r) => r.lastRole === "tool" && r.lastUser.includes("<args>spawn dave"),
        reply: text("Both spawned."),
      },
      ...orchestratorScript(),
      {
        label: "frank's model fails",
        match: { model: "m2", lastUser: taskOf("frank") },
        reply: error(400, { error: { message: "model refused the request", type: "invalid_request_error" } }),
      },
      { label: "dave completes", match: inTask("dave", "user"), reply: toolCall("otto_agent_complete", { summary: "Docs written." }) },
      { label: "dave done", match: inTask("dave", "tool"), reply: text("Done.") },
      { label: "erin completes", match: inTask("erin", "user"), reply: toolCall("otto_agent_complete", { summary: "Tests written." }) },
      { label: "erin done", match: inTask("erin", "tool"), reply: text("Done.") },
      {
        label: "gus asks",
        match: inTask("gus", "user"),
        reply: toolCall("otto_agent_ask", { question: "Keep the old name as an alias?" }),
      },
      { label: "gus waits", match: inTask("gus", "tool"), reply: text("Waiting for an answer about the alias.") },
    );

    expect(await ottoAgent(client, otto.id, "spawn frank --model mock/m2 Migrate the database")).toContain("mock/m2");
    const failed = await e2e.model.waitForRequest(
      (r) => r.lastUser.startsWith("**Crew update**") && r.lastUser.includes("@frank failed"),
      60_000,
    );
    expect(failed.lastUser).toContain("model refused the request");
    expect(failed.lastUser).toContain("Crew: frank failed");
    expect(agentState(ws, "frank")).toBe("failed");

    const spawning = ottoAgent(client, otto.id, "spawn dave Write the docs");
    await until("dave and erin done", () => agentState(ws, "dave") === "done" && agentState(ws, "erin") === "done");
    fs.writeFileSync(go, "");
    expect(await spawning).toContain("Both spawned.");
    const [first, second] = await Promise.all(
      ["Docs written.", "Tests written."].map((summary) =>
        e2e.model.waitForRequest((r) => r.lastUser.startsWith("**Crew update**") && r.lastUser.includes(summary), 60_000),
      ),
    );
    const ordered = [first, second].sort((a, b) => (a?.seq ?? 0) - (b?.seq ?? 0));
    const [a, b] = ordered;
    // Two prompts, each with only its own news, the second sent after the first turn had ended.
    expect(a?.seq).not.toBe(b?.seq);
    expect(a?.lastUser.includes("Docs written.") && a.lastUser.includes("Tests written.")).toBe(false);
    expect(b?.startedAt).toBeGreaterThanOrEqual(a?.endedAt ?? Infinity);
    // Nothing reached the orchestrator while its spawning turn was still running.
    const spawnTurnEnd = e2e.model.requests.find((r) => r.answeredBy === "spawned both")?.endedAt ?? Infinity;
    expect(a?.startedAt).toBeGreaterThanOrEqual(spawnTurnEnd);

    // --wait returns with the question, which is then read: the wake-up it queued is dropped.
    const waited = await ottoAgent(client, otto.id, "spawn gus --wait Rename the module");
    expect(waited).toContain("@gus is blocked on a question; answer with /otto-agent prompt gus <text>.");
    expect(waited).toContain("gus asks: Keep the old name as an alias?");
    expect(await ottoAgent(client, otto.id, "peek gus")).toContain("Waiting for an answer about the alias.");
    expect(await ottoAgent(client, otto.id, "kill gus")).toContain("Stopped @gus; it is idle.");
    const archived = await ottoAgent(client, otto.id, "archive");
    // dave and erin were spawned by two tool calls OpenCode ran in parallel: either may come first.
    for (const entry of ["@frank (failed)", "@dave (done)", "@erin (done)", "@gus (idle)"]) expect(archived).toContain(entry);
    expect(await ottoAgent(client, otto.id, "status")).toContain("The crew has no agents.");
    expect(wakes(e2e.model.requests).filter((r) => r.lastUser.includes("alias"))).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
