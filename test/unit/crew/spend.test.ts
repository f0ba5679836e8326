import type { Event } from "@opencode-ai/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { crewStatus, promptAgent, snapshot, spawnAgent, type Crew } from "../../../src/crew/index.ts";
import { handleCrewEvent } from "../../../src/crew/events.ts";
import { ZERO_USAGE, type Account, type Usage } from "../../../src/cost/index.ts";
import { fakeCrew, ORCH, type FakeCrew } from "./fake-crew.ts";

let f: FakeCrew;
afterEach(() => f.cleanup());

const usage = (usd: number): Usage => ({ ...ZERO_USAGE, requests: 1, input: 1000, output: 200, usd });
const idle = (sessionID: string): Event => ({ type: "session.idle", properties: { sessionID } });

/** A fake crew with a meter that records what it tracks, and sessions whose spend the test sets. */
function metered(): { crew: Crew; tracked: Map<string, Account>; spend: Map<string, Usage> } {
  f = fakeCrew();
  const tracked = new Map<string, Account>();
  const spend = new Map<string, Usage>();
  const crew: Crew = {
    ...f.crew,
    meter: { track: (sessionID, account) => void (tracked.has(sessionID) || tracked.set(sessionID, account)) },
    spendOf: async (sessionID) => spend.get(sessionID) ?? ZERO_USAGE,
  };
  return { crew, tracked, spend };
}

const agentOf = async (crew: Crew, name: string) => (await snapshot(crew)).state.agents.find((a) => a.name === name);

describe("crew spend", () => {
  it("charges the agent's session to its own account from spawn; its spend is recorded when a turn ends and shown in status", async () => {
    const { crew, tracked, spend } = metered();
    const alice = await spawnAgent(
      crew,
      { name: "alice", task: "work", orchestrator: ORCH, directory: "/project" },
      (await snapshot(crew)).state,
    );
    const account = tracked.get(alice.sessionID);
    expect(account?.path).toEqual(["crew alice"]);
    expect(account?.labels).toEqual({ repo: crew.paths.root, crew: "alice", run: alice.createdAt });
    spend.set(alice.sessionID, usage(0.02));
    await handleCrewEvent(crew, idle(alice.sessionID));
    expect((await agentOf(crew, "alice"))?.spend).toMatchObject({ requests: 1, usd: 0.02 });
    expect(await crewStatus(crew)).toContain("| 1.20k tokens, $0.02 |");
  });

  it("an agent whose account reaches its budget in flight is aborted, stopped for budget, otto is told and one notification goes out", async () => {
    const { crew, tracked, spend } = metered();
    const bob = await spawnAgent(
      crew,
      { name: "bob", task: "work", orchestrator: ORCH, directory: "/project", budget: 0.05 },
      (await snapshot(crew)).state,
    );
    expect(tracked.get(bob.sessionID)?.budget).toEqual({ usd: 0.05 });
    spend.set(bob.sessionID, usage(0.06));
    tracked.get(bob.sessionID)?.charge("mock/m1", usage(0.06));
    await vi.waitFor(async () => expect((await agentOf(crew, "bob"))?.state).toBe("stopped"));
    const stopped = await agentOf(crew, "bob");
    expect(stopped).toMatchObject({ error: "budget reached: spent $0.06 of $0.05", spend: { usd: 0.06 } });
    await vi.waitFor(() => expect(f.host.aborted).toEqual([bob.sessionID]));
    const notice = (await snapshot(crew)).stream.at(-1);
    expect(notice).toMatchObject({
      from: "crew",
      kind: "failed",
      text: "@bob stopped: budget reached, spent $0.06 of $0.05. It takes no more prompts.",
    });
    // The notice wakes the orchestrator, as a failure does.
    await vi.waitFor(() =>
      expect(f.host.prompts.some((p) => p.sessionID === ORCH.sessionID && p.text.includes("@bob stopped: budget reached"))).toBe(true),
    );
    await vi.waitFor(() => expect(f.notified).toHaveLength(1));
    expect(f.notified[0]?.title).toBe("@bob stopped at its budget");
    // The idle after the abort changes nothing and notifies nobody again.
    await handleCrewEvent(crew, idle(bob.sessionID));
    expect((await agentOf(crew, "bob"))?.state).toBe("stopped");
    expect(f.notified).toHaveLength(1);
    expect(await crewStatus(crew)).toContain("| bob | stopped (budget) |");
    await expect(promptAgent(crew, ORCH, "bob", "go on")).rejects.toThrow(/stopped at its budget/);
  });

  it("the error that ends a turn its budget stopped (its next call held) is no failure, even before the stop is settled", async () => {
    const { crew, tracked } = metered();
    // The stop's own read of the spend (the first) waits; the turn's end reads it at once.
    let release = (): void => undefined;
    const held = new Promise<Usage>((resolve) => (release = () => resolve(usage(0.06))));
    let reads = 0;
    const slow: Crew = { ...crew, spendOf: async () => (reads++ === 0 ? held : usage(0.06)) };
    const bob = await spawnAgent(
      slow,
      { name: "bob", task: "work", orchestrator: ORCH, directory: "/project", budget: 0.05 },
      (await snapshot(slow)).state,
    );
    expect((await agentOf(slow, "bob"))?.state).toBe("busy");
    tracked.get(bob.sessionID)?.charge("mock/m1", usage(0.06));
    const error: Event = {
      type: "session.error",
      properties: { sessionID: bob.sessionID, error: { name: "UnknownError", data: { message: "Budget reached: spent $0.06 of $0.05" } } },
    };
    await vi.waitFor(() => expect(reads).toBe(1));
    await handleCrewEvent(slow, error);
    await handleCrewEvent(slow, idle(bob.sessionID));
    expect((await agentOf(slow, "bob"))?.state).not.toBe("failed");
    release();
    await vi.waitFor(async () => expect((await agentOf(slow, "bob"))?.state).toBe("stopped"));
    expect((await snapshot(slow)).stream.filter((m) => m.text.includes("@bob failed"))).toEqual([]);
  });

  it("an agent found over its budget when a turn ends is stopped too (its calls were served by another process)", async () => {
    const { crew, spend } = metered();
    const kim = await spawnAgent(
      crew,
      { name: "kim", task: "work", orchestrator: ORCH, directory: "/project", budget: 0.01 },
      (await snapshot(crew)).state,
    );
    spend.set(kim.sessionID, usage(0.012));
    await handleCrewEvent(crew, idle(kim.sessionID));
    expect(await agentOf(crew, "kim")).toMatchObject({ state: "stopped", error: "budget reached: spent $0.01 of $0.01" });
    expect(f.notified).toHaveLength(1);
  });
});
