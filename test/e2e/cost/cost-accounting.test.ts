import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, useE2E, type RecordedRequest } from "../../support/index.ts";
import { execModel } from "../execute/exec-model.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";

/** $3 / $15 per million input / output tokens for m1, $1 / $5 for m2 (opencode.json `cost`). */
const PRICES = { m1: { input: 3, output: 15 }, m2: { input: 1, output: 5 } } as const;

/** What the model server served to otto's child sessions: no title request, not the slash command's own turn. */
function served(requests: readonly RecordedRequest[]) {
  const ours = requests.filter((r) => !r.isTitle && r.usage && !/<args>/.test(JSON.stringify(r.messages)));
  const usd = ours.reduce((sum, r) => {
    const price = PRICES[r.model as keyof typeof PRICES];
    return sum + (r.usage!.prompt_tokens * price.input + r.usage!.completion_tokens * price.output) / 1e6;
  }, 0);
  return {
    requests: ours.length,
    input: ours.reduce((n, r) => n + r.usage!.prompt_tokens, 0),
    output: ours.reduce((n, r) => n + r.usage!.completion_tokens, 0),
    usd,
  };
}

interface Entry {
  session: string;
  model: string;
  path: string[];
  labels: Record<string, string>;
  usage: { requests: number; input: number; output: number; usd: number; unpriced: number };
}

function ledger(dataHome: string): Entry[] {
  const file = path.join(dataHome, "otto", "cost", "ledger.jsonl");
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Entry)
    : [];
}

describe("accounting: every model call of otto's child sessions is counted, priced by OpenCode", () => {
  const e2e = useE2E();

  it("the ledger's sums equal the usage the model served to otto's sessions, to the token and the cent", async () => {
    const ws = await e2e.workspace({
      files: specFiles(tasksMd([["task-001", "pending", 1, [], "Write the greeting"]])),
      ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" }, spec: { verify: [], docs_alignment: false } },
      config: { provider: { mock: { models: { m1: { cost: PRICES.m1 }, m2: { cost: PRICES.m2 } } } } },
    });
    e2e.model.usage = (req) => ({ prompt_tokens: 1000 + req.seq * 7, completion_tokens: 100 + req.seq, total_tokens: 1100 + req.seq * 8 });
    e2e.model.script(...slashCommand("otto_spec"), execModel(ws.project));
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);

    const expected = served(e2e.model.requests);
    expect(expected.requests).toBeGreaterThanOrEqual(3);
    const entries = ledger(ws.dirs.dataHome);
    const sum = (f: (e: Entry) => number) => entries.reduce((n, e) => n + f(e), 0);
    expect(sum((e) => e.usage.requests)).toBe(expected.requests);
    expect(sum((e) => e.usage.input)).toBe(expected.input);
    expect(sum((e) => e.usage.output)).toBe(expected.output);
    expect(sum((e) => e.usage.unpriced)).toBe(0);
    expect(Math.round(sum((e) => e.usage.usd) * 100)).toBe(Math.round(expected.usd * 100));
    expect(sum((e) => e.usage.usd)).toBeCloseTo(expected.usd, 6);
    expect(new Set(entries.map((e) => e.model))).toEqual(new Set(["mock/m1", "mock/m2"]));
  });

  it("a model without a price still counts its tokens, and its cost is unknown, not $0", async () => {
    const ws = await e2e.workspace({
      files: specFiles(tasksMd([["task-001", "pending", 1, [], "Write the greeting"]])),
      ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m1" }, spec: { verify: [], docs_alignment: false, review_gate: false } },
    });
    e2e.model.script(...slashCommand("otto_spec"), execModel(ws.project));
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    const entries = ledger(ws.dirs.dataHome);
    expect(entries.length).toBe(served(e2e.model.requests.map((r) => ({ ...r, model: "m1" }))).requests);
    expect(entries.every((e) => e.usage.unpriced === 1 && e.usage.usd === 0 && e.usage.input === 10 && e.usage.output === 5)).toBe(true);
  });
});
