import { describe, expect, it } from "vitest";
import {
  isFor,
  onComplete,
  onDeliver,
  onError,
  onIdle,
  sortForStatus,
  summaryLine,
  unreadFor,
  wakeTargets,
} from "../../../src/crew/policy.ts";
import type { Agent, Message } from "../../../src/crew/index.ts";

const now = new Date("2026-01-01T10:00:00Z");

function agent(name: string, patch: Partial<Agent> = {}): Agent {
  return {
    name,
    sessionID: `ses_${name}`,
    directory: "/p",
    agent: "otto-crew",
    task: "t",
    state: "busy",
    createdAt: now.toISOString(),
    activeAt: now.toISOString(),
    ...patch,
  };
}

function message(seq: number, patch: Partial<Message>): Message {
  return { seq, at: now.toISOString(), from: "alice", kind: "say", text: "hi", mentions: [], ...patch };
}

const crew = { agents: [agent("alice"), agent("bob")], cursors: {} as Record<string, number> };

describe("wakeTargets", () => {
  it("wakes otto for questions, completions, failures and @otto, not for plain chatter", () => {
    expect(wakeTargets(message(1, { kind: "ask" }), crew)).toEqual([{ kind: "otto" }]);
    expect(wakeTargets(message(1, { kind: "complete" }), crew)).toEqual([{ kind: "otto" }]);
    expect(wakeTargets(message(1, { mentions: ["otto"] }), crew)).toEqual([{ kind: "otto" }]);
    expect(wakeTargets(message(1, {}), crew)).toEqual([]);
  });

  it("wakes the agents a message names, never its sender, and the agent a prompt is for", () => {
    expect(wakeTargets(message(1, { mentions: ["bob", "alice", "nobody"] }), crew)).toEqual([{ kind: "agent", name: "bob" }]);
    expect(wakeTargets(message(1, { from: "otto", kind: "prompt", to: "alice", mentions: ["alice"] }), crew)).toEqual([
      { kind: "agent", name: "alice" },
    ]);
  });

  it("a failure notice wakes otto only, never the failed agent", () => {
    expect(wakeTargets(message(1, { from: "crew", kind: "failed", text: "@alice failed", mentions: ["alice"] }), crew)).toEqual([
      { kind: "otto" },
    ]);
  });
});

describe("unread messages", () => {
  const stream = [
    message(1, { from: "alice", mentions: ["bob"] }),
    message(2, { from: "bob", kind: "ask" }),
    message(3, { from: "otto", kind: "prompt", to: "alice", mentions: ["alice"] }),
    message(4, { from: "alice", kind: "complete" }),
  ];

  it("otto reads the whole stream except its own; an agent what names it", () => {
    expect(stream.filter((m) => isFor("otto", m)).map((m) => m.seq)).toEqual([1, 2, 4]);
    expect(stream.filter((m) => isFor("alice", m)).map((m) => m.seq)).toEqual([3]);
    expect(stream.filter((m) => isFor("bob", m)).map((m) => m.seq)).toEqual([1]);
  });

  it("starts after the reader's cursor and stops at the message that caused the wake-up", () => {
    expect(unreadFor("otto", { cursors: { otto: 1 } }, stream, 2).map((m) => m.seq)).toEqual([2]);
    expect(unreadFor("otto", { cursors: { otto: 1 } }, stream).map((m) => m.seq)).toEqual([2, 4]);
    expect(unreadFor("otto", { cursors: { otto: 4 } }, stream, 2)).toEqual([]);
  });
});

describe("state transitions", () => {
  it("otto's prompt is new work: busy, question and human cleared", () => {
    const blocked = agent("a", { state: "blocked", question: { seq: 2, text: "q", human: true }, human: { seq: 2, text: "q" } });
    expect(onDeliver(blocked, [message(3, { from: "otto", kind: "prompt", to: "a" })], now)).toMatchObject({
      state: "busy",
      question: undefined,
      human: undefined,
      resume: undefined,
    });
  });

  it("a teammate's mention interrupts: busy, and back to where it was when the turn ends", () => {
    const blocked = agent("a", { state: "blocked" });
    const patch = onDeliver(blocked, [message(3, { from: "bob", mentions: ["a"] })], now);
    expect(patch).toMatchObject({ state: "busy", resume: "blocked" });
    expect(onIdle({ ...blocked, ...patch }, now)?.patch).toMatchObject({ state: "blocked", resume: undefined });
    expect(onDeliver(agent("a"), [message(3, { from: "bob" })], now)).toEqual({ activeAt: now.toISOString() });
  });

  it("a busy agent whose turn ends without completing has failed, and otto hears of it", () => {
    const result = onIdle(agent("a"), now);
    expect(result?.patch).toMatchObject({ state: "failed", error: "its turn ended without otto_agent_complete or otto_agent_ask" });
    expect(result?.notice).toMatchObject({ from: "crew", kind: "failed", mentions: [] });
    expect(onIdle(agent("a", { state: "done" }), now)).toBeUndefined();
  });

  it("a session error fails a busy agent; an aborted turn (kill) does not", () => {
    expect(onError(agent("a"), { name: "APIError", message: "boom" }, now)?.patch).toMatchObject({
      state: "failed",
      error: "APIError: boom",
    });
    expect(onError(agent("a"), { name: "MessageAbortedError", message: "aborted" }, now)).toBeUndefined();
    expect(onError(agent("a", { state: "idle" }), { name: "APIError", message: "x" }, now)).toBeUndefined();
  });

  it("completion is done, or failed with the TASK_FAILED reason", () => {
    expect(onComplete("Wrote it.\n", now)).toMatchObject({ state: "done", summary: "Wrote it." });
    expect(onComplete("Tried.\nTASK_FAILED: no access to the DB", now)).toMatchObject({ state: "failed", error: "no access to the DB" });
  });
});

describe("status order and the one-line state", () => {
  it("puts agents that need a human first, then blocked, failed, busy, idle, done", () => {
    const agents = [
      agent("d", { state: "done" }),
      agent("b", { state: "busy" }),
      agent("x", { state: "blocked" }),
      agent("h", { state: "done", human: { seq: 1, text: "?" } }),
      agent("f", { state: "failed" }),
    ];
    expect(sortForStatus(agents).map((a) => a.name)).toEqual(["h", "x", "f", "b", "d"]);
    expect(summaryLine({ agents })).toBe("h done · x blocked · f failed · b busy · d done · needs a human: h");
    expect(summaryLine({ agents: [] })).toBe("no agents");
  });
});
