import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatCost, formatTokens, readLedger, sumUsage, totalTokens, ZERO_USAGE, type Usage } from "../../../src/cost/index.ts";
import { assertPluginLoaded, text, toolCall, useE2E, type RecordedRequest } from "../../support/index.ts";
import {
  crewDir,
  agentState,
  deliverFor,
  idle,
  inDelivery,
  inTask,
  orchestratorScript,
  ottoAgent,
  readCrew,
  taskOf,
  until,
  wakeWith,
  wakes,
} from "../crew/drive.ts";

/** Dollars per million tokens: OpenCode prices every message of mock/m1 with it. */
const PRICE = { provider: { mock: { models: { m1: { cost: { input: 3, output: 15 } }, m2: { cost: { input: 1, output: 5 } } } } } };

/** The requests of an agent's session: its task turn and every delivery (wake-up) after it. */
const ofAgent = (name: string) => (r: RecordedRequest) =>
  !r.isTitle && (r.lastUser.includes(taskOf(name)) || r.lastUser.startsWith(deliverFor(name)));

/** What the scripted model served those requests, as OpenCode prices them. */
function served(requests: readonly RecordedRequest[]): Usage {
  return sumUsage(
    requests.map((r) => {
      const input = r.usage?.prompt_tokens ?? 0;
      const output = r.usage?.completion_tokens ?? 0;
      return { ...ZERO_USAGE, requests: 1, input, output, usd: (input * 3 + output * 15) / 1e6 };
    }),
  );
}

type Spent = { spend?: Usage; budget?: number };
const agentRecord = (ws: Parameters<typeof readCrew>[0], name: string): Spent =>
  (readCrew(ws).agents.find((a) => a.name === name) ?? {}) as Spent;

describe("crew: what agents cost", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("every prompt of an agent's session (its task and each wake-up) is charged to it; status shows exactly what it was served", async () => {
    const ws = await e2e.workspace({ config: PRICE });
    e2e.model.usage = (req) => ({ prompt_tokens: 1000 + req.seq, completion_tokens: 200, total_tokens: 1200 + req.seq });
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const otto = (await client.session.create({ body: { title: "orchestrator" }, throwOnError: true })).data;
    e2e.model.script(
      ...orchestratorScript(),
      { label: "alice asks", match: inTask("alice", "user"), reply: toolCall("otto_agent_ask", { question: "Which port?" }) },
      { label: "alice waits", match: inTask("alice", "tool"), reply: text("Waiting for an answer.") },
      {
        label: "alice completes",
        match: inDelivery("alice", "Use 8080", "user"),
        reply: toolCall("otto_agent_complete", { summary: "Listening on 8080." }),
      },
      { label: "alice done", match: inDelivery("alice", "Use 8080", "tool"), reply: text("Done.") },
    );
    expect(await ottoAgent(client, otto.id, "spawn alice Build the API")).toContain("Spawned @alice");
    // The question's wake-up first: a command sent while it arrives would share its turn.
    await e2e.model.waitForRequest(wakeWith("Which port?"), 60_000);
    await until("alice blocked", () => agentState(ws, "alice") === "blocked");
    expect(await ottoAgent(client, otto.id, "prompt alice Use 8080")).toContain("to @alice");
    await until("alice done", () => agentState(ws, "alice") === "done");
    await e2e.model.waitForRequest(inDelivery("alice", "Use 8080", "tool"), 60_000);
    // Recorded when its turn ends (session.idle), from its session's messages.
    await until("alice's spend recorded", () => agentRecord(ws, "alice").spend?.requests === 4);

    const expected = served(e2e.model.requests.filter(ofAgent("alice")));
    expect(expected.requests).toBe(4);
    const spend = agentRecord(ws, "alice").spend;
    expect(spend).toMatchObject({ requests: 4, input: expected.input, output: expected.output, unpriced: 0 });
    expect(spend?.usd).toBeCloseTo(expected.usd, 9);

    for (const verb of ["status", "list"]) {
      const listing = await ottoAgent(client, otto.id, verb);
      expect(listing).toContain(`| ${formatTokens(totalTokens(expected))} tokens, ${formatCost(expected)} |`);
    }
    // Every call is on the ledger under the agent's account, the wake-up's as much as the first turn's.
    const ledger = (await readLedger(path.join(ws.dirs.dataHome, "otto", "cost", "ledger.jsonl"))).filter((e) => e.labels.crew === "alice");
    expect(ledger.map((e) => e.path)).toEqual([["crew alice"], ["crew alice"], ["crew alice"], ["crew alice"]]);
    expect(ledger[0]?.labels.repo).toBe(ws.project);
    expect(sumUsage(ledger.map((e) => e.usage)).input).toBe(expected.input);
  });

  it("an agent spawned with --budget is stopped when its spend reaches it: aborted, stopped in status, otto woken", async () => {
    const ws = await e2e.workspace({ config: PRICE });
    e2e.model.usage = (req) => ({ prompt_tokens: 1000 + req.seq, completion_tokens: 200, total_tokens: 1200 + req.seq });
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const otto = (await client.session.create({ body: { title: "orchestrator" }, throwOnError: true })).data;
    // bob never stops on its own: every call of its is one more tool call.
    e2e.model.script(...orchestratorScript(), {
      label: "bob works",
      match: ofAgent("bob"),
      reply: toolCall("otto_agent_say", { message: "still working" }),
      times: Infinity,
    });
    // About $0.006 a call: the second call reaches $0.01.
    expect(await ottoAgent(client, otto.id, "spawn bob --budget 0.01 Keep working")).toContain("with a budget of $0.01");
    await until("bob stopped", () => agentState(ws, "bob") === "stopped");
    await e2e.model.waitForRequest(wakeWith("@bob stopped: budget reached"), 60_000);
    // The stop is not also reported as a failure (its next call was held, which ends the turn with an error).
    expect(wakes(e2e.model.requests).filter((r) => r.lastUser.includes("@bob failed"))).toEqual([]);
    const calls = e2e.model.requests.filter(ofAgent("bob")).length;
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(3);

    const status = await ottoAgent(client, otto.id, "status");
    expect(status).toMatch(/\| bob \| stopped \(budget\) \|.*\$0\.01 of \$0\.01 \| error: budget reached: spent \$0\.01 of \$0\.01/);
    expect(agentRecord(ws, "bob").budget).toBe(0.01);
    expect(agentRecord(ws, "bob").spend?.usd).toBeGreaterThanOrEqual(0.01);
    // Nothing more reaches it: the prompt is refused before it enters the stream (the only way a prompt
    // reaches an agent), and once bob's session has no turn left, no call of its can come.
    expect(await ottoAgent(client, otto.id, "prompt bob Go on")).toContain("stopped at its budget");
    const stream = fs.readFileSync(path.join(crewDir(ws) ?? "", "messages.jsonl"), "utf8");
    expect(stream).not.toContain("Go on");
    await idle(client, readCrew(ws).agents.find((a) => a.name === "bob")!.sessionID);
    expect(e2e.model.requests.filter(ofAgent("bob"))).toHaveLength(calls);
  });
});
