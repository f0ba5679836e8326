import { describe, expect, it } from "vitest";
import { countLine, formatAge, formatMessage, renderStatusTable } from "../../../src/crew/render.ts";
import type { Agent, Message } from "../../../src/crew/index.ts";

const at = "2026-01-01T10:00:00.000Z";
const msg = (patch: Partial<Message>): Message => ({ seq: 7, at, from: "alice", kind: "say", text: "hi", mentions: [], ...patch });

describe("rendering the crew", () => {
  it("formats each kind of message on one line, continuation lines indented", () => {
    expect(formatMessage(msg({}))).toBe("#7 alice: hi");
    expect(formatMessage(msg({ kind: "ask", text: "Which port?\nIt matters." }))).toBe("#7 alice asks: Which port?\n   It matters.");
    expect(formatMessage(msg({ kind: "complete", text: "Done." }))).toBe("#7 alice completed: Done.");
    expect(formatMessage(msg({ from: "otto", kind: "prompt", to: "bob", text: "Go." }))).toBe("#7 otto → @bob: Go.");
    expect(formatMessage(msg({ from: "crew", kind: "failed", text: "@bob failed: x" }))).toBe("#7 crew notice: @bob failed: x");
  });

  it("says ages in the largest whole unit", () => {
    const now = new Date("2026-01-01T10:00:00Z");
    expect(formatAge("2026-01-01T09:59:15Z", now)).toBe("45s");
    expect(formatAge("2026-01-01T09:48:00Z", now)).toBe("12m");
    expect(formatAge("2026-01-01T07:00:00Z", now)).toBe("3h");
    expect(formatAge("2025-12-30T10:00:00Z", now)).toBe("2d");
  });

  it("builds the status table, escaping pipes, with counts by state", () => {
    const agent: Agent = {
      name: "a",
      sessionID: "s",
      directory: "/p",
      agent: "otto-crew",
      task: "fix | things",
      state: "done",
      createdAt: at,
      activeAt: at,
      summary: "ok",
    };
    const table = renderStatusTable([agent], new Date("2026-01-01T10:05:00Z"));
    expect(table.split("\n")[2]).toBe("| a | done | fix \\| things | 5m | 5m ago | - | summary: ok |");
    const spent = { requests: 2, input: 2000, output: 400, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd: 0.012, unpriced: 0 };
    const stopped = renderStatusTable(
      [{ ...agent, state: "stopped", spend: spent, budget: 0.01, error: "budget reached: spent $0.01 of $0.01" }],
      new Date("2026-01-01T10:05:00Z"),
    );
    expect(stopped.split("\n")[2]).toBe(
      "| a | stopped (budget) | fix \\| things | 5m | 5m ago | 2.40k tokens, $0.01 of $0.01 | error: budget reached: spent $0.01 of $0.01 |",
    );
    expect(countLine([agent, { ...agent, name: "b", state: "busy" }])).toBe("2 agents: 1 busy, 1 done");
  });
});
