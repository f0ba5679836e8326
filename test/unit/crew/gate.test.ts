import type { Event } from "@opencode-ai/sdk";
import { describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { PromptGates, type GateItem } from "../../../src/crew/index.ts";
import type { Delivery } from "../../../src/crew/gate.ts";

const idle = (sessionID: string): Event => ({ type: "session.idle", properties: { sessionID } });
const busy = (sessionID: string): Event => ({ type: "session.status", properties: { sessionID, status: { type: "busy" } } });

function recorder(results: Record<string, Delivery> = {}) {
  const sent: string[] = [];
  const item = (key: string, order = 0): GateItem => ({
    key,
    order,
    deliver: async () => {
      sent.push(key);
      return results[key] ?? "sent";
    },
  });
  return { sent, item };
}

describe("PromptGates", () => {
  it("sends one prompt at a time per session and the next when the session goes idle", async () => {
    const gates = new PromptGates({ log: silentLogger });
    const { sent, item } = recorder();
    gates.enqueue("s1", item("a", 1));
    gates.enqueue("s1", item("b", 2));
    gates.enqueue("s2", item("c", 1));
    await vi.waitFor(() => expect(sent).toEqual(["a", "c"]));
    expect(gates.pending("s1")).toBe(1);
    gates.observe(idle("s1"));
    await vi.waitFor(() => expect(sent).toEqual(["a", "c", "b"]));
  });

  it("queues while OpenCode reports a turn running, in the order of the messages that caused them", async () => {
    const gates = new PromptGates({ log: silentLogger });
    const { sent, item } = recorder();
    gates.enqueue("s", item("first", 1));
    await vi.waitFor(() => expect(sent).toEqual(["first"]));
    gates.observe(idle("s"));
    gates.observe(busy("s"));
    gates.enqueue("s", item("late", 9));
    gates.enqueue("s", item("early", 3));
    // The positive control and the end of the window: a prompt for an idle session, enqueued after
    // them, is delivered; the busy session's two were held, not lost.
    gates.enqueue("other", item("control", 1));
    await vi.waitFor(() => expect(sent).toContain("control"));
    expect(sent).toEqual(["first", "control"]);
    expect(gates.pending("s")).toBe(2);
    gates.observe(idle("s"));
    await vi.waitFor(() => expect(sent).toEqual(["first", "control", "early"]));
    gates.observe(idle("s"));
    await vi.waitFor(() => expect(sent).toEqual(["first", "control", "early", "late"]));
  });

  it("drops a duplicate of a queued or in-flight prompt", async () => {
    const gates = new PromptGates({ log: silentLogger });
    const { sent, item } = recorder();
    gates.enqueue("s", item("a"));
    gates.enqueue("s", item("b"));
    gates.enqueue("s", item("b"));
    gates.enqueue("s", item("a"));
    await vi.waitFor(() => expect(sent).toEqual(["a"]));
    expect(gates.pending("s")).toBe(1);
    gates.observe(idle("s"));
    await vi.waitFor(() => expect(sent).toEqual(["a", "b"]));
  });

  it("moves on at once when there was nothing to say, and waits when the delivery finds the session busy", async () => {
    const gates = new PromptGates({ log: silentLogger });
    const results: Record<string, Delivery> = { empty: "nothing", taken: "busy" };
    const { sent, item } = recorder(results);
    gates.enqueue("s", item("empty", 1));
    gates.enqueue("s", item("taken", 2));
    gates.enqueue("s", item("after", 3));
    await vi.waitFor(() => expect(sent).toEqual(["empty", "taken"]));
    expect(gates.pending("s")).toBe(2);
    results.taken = "sent";
    gates.observe(idle("s"));
    await vi.waitFor(() => expect(sent).toEqual(["empty", "taken", "taken"]));
    gates.observe(idle("s"));
    await vi.waitFor(() => expect(sent).toEqual(["empty", "taken", "taken", "after"]));
  });

  it("a failing delivery does not block the queue", async () => {
    const gates = new PromptGates({ log: silentLogger });
    const sent: string[] = [];
    gates.enqueue("s", { key: "x", order: 1, deliver: () => Promise.reject(new Error("boom")) });
    gates.enqueue("s", { key: "y", order: 2, deliver: async () => (sent.push("y"), "sent") });
    await vi.waitFor(() => expect(sent).toEqual(["y"]));
  });

  it("stops waiting for an idle event that never came after stuckMs, and clear() empties a queue", async () => {
    let now = 0;
    const gates = new PromptGates({ log: silentLogger, now: () => now, stuckMs: 1000 });
    const { sent, item } = recorder();
    gates.enqueue("s", item("a", 1));
    await vi.waitFor(() => expect(sent).toEqual(["a"]));
    gates.enqueue("s", item("b", 2));
    gates.clear("s");
    expect(gates.pending("s")).toBe(0);
    now = 5000;
    gates.enqueue("s", item("c", 3));
    await vi.waitFor(() => expect(sent).toEqual(["a", "c"]));
  });
});
