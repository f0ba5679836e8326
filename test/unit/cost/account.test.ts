import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  Account,
  formatCost,
  formatTokenCount,
  formatUsage,
  isBudgetStop,
  messageUsage,
  Meter,
  withAccount,
  currentAccount,
  appendLedger,
  type LedgerEntry,
} from "../../../src/cost/index.ts";
import { silentLogger } from "../../../src/core/index.ts";

const call = (input: number, output: number, usd: number, priced = true) => messageUsage({ tokens: { input, output }, cost: usd }, priced);

describe("Account", () => {
  it("adds a charge to itself and every parent, per model", () => {
    const run = new Account("run");
    const task = run.child("task 1").child("attempt 1");
    task.charge("mock/m1", call(100, 20, 0.5));
    run.child("task 2").charge("mock/m2", call(10, 2, 0.25));
    expect(run.usage).toMatchObject({ requests: 2, input: 110, output: 22, usd: 0.75 });
    expect(run.byModel.get("mock/m1")?.usd).toBe(0.5);
    expect(task.path).toEqual(["run", "task 1", "attempt 1"]);
  });

  it("stops at its budget: the signal aborts, children refuse new calls, the stop names spent and limit", () => {
    const stops: string[] = [];
    const run = new Account("execute demo", { budget: { usd: 1 }, onStop: (stop) => stops.push(stop.message) });
    const attempt = run.child("task 1");
    attempt.charge("mock/m1", call(1000, 100, 0.6));
    expect(attempt.signal.aborted).toBe(false);
    attempt.charge("mock/m1", call(1000, 100, 0.45));
    expect(run.signal.aborted).toBe(true);
    expect(attempt.signal.aborted).toBe(true);
    expect(() => attempt.child("task 2").check()).toThrow(/Budget reached: spent \$1\.05 of \$1\.00 \(execute demo\)/);
    expect(isBudgetStop(attempt.stopped)).toBe(true);
    expect(stops).toHaveLength(1);
  });

  it("counts tokens against a token budget, priced or not", () => {
    const run = new Account("run", { budget: { tokens: 500 } });
    run.charge("mock/m1", call(300, 100, 0, false));
    expect(run.stopped).toBeUndefined();
    run.charge("mock/m1", call(100, 50, 0, false));
    expect(run.stopped?.message).toMatch(/spent 550 of 500 tokens/);
  });

  it("says a dollar budget cannot hold for an unpriced model, once", () => {
    const said: string[] = [];
    const run = new Account("run", { budget: { usd: 1 }, onUnpricedBudget: (a) => said.push(a.name) });
    run.charge("mock/m1", call(1, 1, 0, false));
    run.charge("mock/m1", call(1, 1, 0, false));
    expect(said).toEqual(["run"]);
  });
});

describe("usage formatting", () => {
  it("never shows an unpriced cost as $0", () => {
    expect(formatCost(call(10, 5, 0, false))).toBe("cost unknown");
    expect(formatUsage(call(1200, 300, 0.0123))).toBe("1.50k tokens, $0.01");
    expect(formatCost({ ...call(1, 1, 0.5), requests: 2, unpriced: 1 })).toBe("≥ $0.50");
  });

  it("names the cache reads a provider reported, and nothing when there were none", () => {
    const cached = messageUsage({ tokens: { input: 200, output: 300, cache: { read: 1000 } }, cost: 0.004 }, true);
    expect(formatUsage(cached)).toBe("1.50k tokens (1.00k cache read), $0.0040");
    expect(formatTokenCount(cached)).toBe("1.50k (1.00k cache read)");
    expect(formatTokenCount(call(1200, 300, 0.01))).toBe("1.50k");
  });

  it("names the cache writes a provider reported (Anthropic's), beside the reads", () => {
    const written = messageUsage({ tokens: { input: 200, output: 300, cache: { read: 1000, write: 2000 } }, cost: 0.01 }, true);
    expect(formatUsage(written)).toBe("3.50k tokens (1.00k cache read, 2.00k cache write), $0.01");
    const only = messageUsage({ tokens: { input: 200, output: 300, cache: { read: 0, write: 2000 } }, cost: 0.01 }, true);
    expect(formatTokenCount(only)).toBe("2.50k (2.00k cache write)");
  });
});

describe("withAccount", () => {
  it("carries the account through awaits", async () => {
    const run = new Account("run");
    const seen = await withAccount(run, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return currentAccount();
    });
    expect(seen).toBe(run);
    expect(currentAccount()).toBeUndefined();
  });
});

describe("Meter", () => {
  const assistant = (id: string, sessionID: string, input: number, cost: number, completed?: number) => ({
    type: "message.updated" as const,
    properties: {
      info: {
        id,
        sessionID,
        role: "assistant" as const,
        providerID: "mock",
        modelID: "m1",
        mode: "otto-executor",
        cost,
        tokens: { input, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
        time: { created: 1, ...(completed ? { completed } : {}) },
      },
    },
  });

  it("charges each message's growth once, its subagents' too, and records finished calls in the ledger", async () => {
    const entries: LedgerEntry[] = [];
    const meter = new Meter({ priced: async () => true, record: async (e) => void entries.push(...e), log: silentLogger });
    const run = new Account("run", { labels: { spec: "demo" } });
    meter.track("s1", run);
    const emit = (e: unknown) => meter.onEvent(e as Parameters<Meter["onEvent"]>[0]);
    emit(assistant("m1", "s1", 100, 0.1));
    emit(assistant("m1", "s1", 150, 0.15, 5));
    emit({ type: "session.created", properties: { info: { id: "s2", parentID: "s1" } } });
    emit(assistant("m2", "s2", 10, 0.01, 6));
    emit(assistant("m3", "other", 999, 9, 7));
    await meter.flush();
    expect(run.usage).toMatchObject({ requests: 2, input: 160, usd: 0.16 });
    expect(entries.map((e) => [e.message, e.usage.input, e.labels.spec])).toEqual([
      ["m1", 150, "demo"],
      ["m2", 10, "demo"],
    ]);
    // Reconciling with the session's messages adds what the events missed, nothing twice.
    const total = await meter.settle("s1", [
      { info: assistant("m1", "s1", 150, 0.15, 5).properties.info },
      { info: assistant("m4", "s1", 40, 0.04, 8).properties.info },
    ]);
    expect(total).toMatchObject({ requests: 2, input: 190 });
    expect(run.usage.input).toBe(200);
    expect(entries).toHaveLength(3);
  });
});

describe("the ledger", () => {
  it("holds counts and names only: no prompt, no reply and no secret, whatever the message carries", async () => {
    const SECRET = "ghp_ledgerMustNotHoldThis0123456789abcd";
    const entries: LedgerEntry[] = [];
    const meter = new Meter({ priced: async () => true, record: async (e) => void entries.push(...e), log: silentLogger });
    meter.track("s1", new Account("run", { labels: { spec: "demo" } }));
    // A message as OpenCode could hand it over, with text beside its counts: none of it may reach the ledger.
    const info = {
      id: "m1",
      sessionID: "s1",
      role: "assistant",
      providerID: "mock",
      modelID: "m1",
      cost: 0.01,
      tokens: { input: 10, output: 2, reasoning: 0, cache: { read: 0, write: 0 } },
      time: { created: 1, completed: 2 },
      system: [`the prompt, with ${SECRET}`],
      summary: { title: `the reply, with ${SECRET}` },
      error: { name: "APIError", data: { message: `a failure quoting ${SECRET}` } },
    };
    meter.onEvent({ type: "message.updated", properties: { info } } as unknown as Parameters<Meter["onEvent"]>[0]);
    await meter.flush();
    expect(entries).toHaveLength(1);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "otto-ledger-"));
    try {
      const file = path.join(dir, "ledger.jsonl");
      await appendLedger(file, entries);
      const text = await fs.readFile(file, "utf8");
      expect(text).not.toContain(SECRET);
      expect(text).not.toMatch(/prompt|reply|failure/);
      expect(Object.keys(JSON.parse(text) as object).sort()).toEqual(
        ["agent", "at", "labels", "message", "model", "path", "session", "usage"].filter((k) => k in entries[0]!),
      );
      expect(entries[0]).toMatchObject({ session: "s1", message: "m1", model: "mock/m1", path: ["run"], labels: { spec: "demo" } });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Meter at a session's end", () => {
  it("records a call the session never finished (a turn aborted by its budget) in the ledger", async () => {
    const entries: LedgerEntry[] = [];
    const meter = new Meter({ priced: async () => true, record: async (e) => void entries.push(...e), log: silentLogger });
    const run = new Account("run");
    meter.track("s1", run);
    const cut = {
      id: "m1",
      sessionID: "s1",
      role: "assistant",
      providerID: "mock",
      modelID: "m1",
      cost: 0.02,
      tokens: { input: 200, output: 3 },
      time: { created: 1_000 },
    };
    meter.onEvent({ type: "message.updated", properties: { info: cut } } as unknown as Parameters<Meter["onEvent"]>[0]);
    await meter.flush();
    expect(entries).toHaveLength(0);
    await meter.settle("s1", [{ info: cut }]);
    expect(entries.map((e) => [e.message, e.usage.input, e.at])).toEqual([["m1", 200, new Date(1_000).toISOString()]]);
    expect(run.usage.input).toBe(200);
  });

  it("holds the next call of a session whose budget the last update spent (chat.params); other sessions call on", async () => {
    const meter = new Meter({ priced: async () => true, record: async () => undefined, log: silentLogger });
    const run = new Account("build demo", { budget: { usd: 0.015 } });
    meter.track("s1", run);
    const step = { sessionID: "s1", role: "assistant", providerID: "mock", modelID: "m1", time: { created: 1_000 } };
    await meter.beforeCall("s1");
    meter.onEvent({
      type: "message.updated",
      properties: { info: { ...step, id: "m1", cost: 0.016, tokens: { input: 1000, output: 200 } } },
    } as unknown as Parameters<Meter["onEvent"]>[0]);
    // Not flushed by the caller: the check waits for the update itself.
    await expect(meter.beforeCall("s1")).rejects.toThrow(/Budget reached: spent \$0\.02 of \$0\.01/);
    await expect(meter.beforeCall("s2")).resolves.toBeUndefined();
  });

  it("a step aborted before its call reported anything is neither counted nor recorded; one aborted after reporting usage is", async () => {
    const entries: LedgerEntry[] = [];
    const meter = new Meter({ priced: async () => true, record: async (e) => void entries.push(...e), log: silentLogger });
    const run = new Account("run");
    meter.track("s1", run);
    const base = { sessionID: "s1", role: "assistant", providerID: "mock", modelID: "m1", time: { created: 1_000, completed: 1_500 } };
    const aborted = { name: "MessageAbortedError" };
    const empty = { ...base, id: "m1", cost: 0, tokens: { input: 0, output: 0 }, error: aborted };
    const used = { ...base, id: "m2", cost: 0.01, tokens: { input: 300, output: 0 }, error: aborted };
    const failed = { ...base, id: "m3", cost: 0, tokens: { input: 0, output: 0 }, error: { name: "APIError" } };
    for (const info of [empty, used, failed])
      meter.onEvent({ type: "message.updated", properties: { info } } as unknown as Parameters<Meter["onEvent"]>[0]);
    await meter.settle("s1", [{ info: empty }, { info: used }, { info: failed }]);
    expect(entries.map((e) => e.message)).toEqual(["m2", "m3"]);
    expect(run.usage).toMatchObject({ requests: 2, input: 300 });
  });
});
