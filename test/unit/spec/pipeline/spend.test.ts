import { describe, expect, it } from "vitest";
import { OttoError } from "../../../../src/core/index.ts";
import { Account, messageUsage, withAccount, type LedgerEntry, type Usage } from "../../../../src/cost/index.ts";
import {
  flowRuns,
  parseSpendSection,
  parseStageRecord,
  renderHistory,
  renderStatus,
  runDocumentStage,
  StageStopped,
} from "../../../../src/spec/index.ts";
import { fakeSpec, REQUIREMENTS } from "./fake-spec.ts";
import { passRows, passTable, renderStageReport, renderStopReport } from "../../../../src/spec/pipeline/render-output.ts";

const call = (input: number, output: number, usd: number, priced = true): Usage =>
  messageUsage({ tokens: { input, output }, cost: usd }, priced);
const add = (a: Usage, b: Usage): Usage => ({
  requests: a.requests + b.requests,
  input: a.input + b.input,
  output: a.output + b.output,
  reasoning: 0,
  cacheRead: 0,
  cacheWrite: 0,
  usd: Math.round((a.usd + b.usd) * 1e6) / 1e6,
  unpriced: a.unpriced + b.unpriced,
});

const write = call(1007, 101, 0.004536);
const review = call(1014, 102, 0.001524);
const total = add(write, review);
const spend = {
  usage: total,
  byModel: { "mock/m1": write, "mock/m2": review },
  passes: [
    { label: "write", model: "mock/m1", usage: write },
    { label: "review", model: "mock/m2", usage: review },
  ],
};

describe("a stage's spend in its history record", () => {
  it("is written exactly and read back (total and per model)", () => {
    const text = renderHistory({
      stage: "research",
      slug: "demo",
      at: new Date("2026-11-26T10:00:00.000Z"),
      outcome: "wrote research.md",
      models: {},
      spend,
    });
    expect(text).toContain("- **spend**: 2.22k tokens, $0.0061 (2 model calls)");
    expect(text).toContain("| pass 2: review (mock/m2) | 1 | 1014 | 102 | 0 | 0 | 0 | 0.001524 | 0 |");
    expect(text).toContain("| total | 2 | 2021 | 203 | 0 | 0 | 0 | 0.006060 | 0 |");
    expect(parseSpendSection(text)).toEqual({ usage: total, byModel: { "mock/m1": write, "mock/m2": review } });
  });

  it("is absent from an old record, and a torn table is not read as figures", () => {
    expect(parseSpendSection("# research: demo\n\n- **at**: x\n")).toBeUndefined();
    expect(parseSpendSection("## Spend\n\n| total | 2 | x |\n")).toBeUndefined();
  });

  it("a stage record is told from other files of history/ (rejected tasks, another spec's)", () => {
    const text = renderHistory({
      stage: "task-generate",
      slug: "demo",
      at: new Date("2026-11-26T10:00:00.000Z"),
      outcome: "wrote tasks.md (3 tasks)",
      models: {},
      spend,
    });
    expect(parseStageRecord(text, "demo")).toEqual({
      stage: "task-generate",
      at: "2026-11-26T10:00:00.000Z",
      outcome: "wrote tasks.md (3 tasks)",
      usage: total,
    });
    expect(parseStageRecord(text, "other")).toBeUndefined();
    expect(parseStageRecord("# Tasks\n\n## Task 1: x\n", "demo")).toBeUndefined();
  });
});

describe("stage output", () => {
  it("names the total in the heading and ends the pass table with it", () => {
    const output = renderStageReport({
      heading: "research.md written for demo",
      written: ["x"],
      passes: passRows(spend.passes, ["generated research.md", "approve"]),
      total,
      next: "n",
    });
    expect(output.split("\n")[0]).toBe("## research.md written for demo (2.22k tokens, $0.0061)");
    expect(output).toContain("| 1 | write | mock/m1 | generated research.md | 1.11k | $0.0045 |");
    expect(output).toContain("|  | total |  | 2 model calls | 2.22k | $0.0061 |");
  });

  it("shows an unpriced pass's cost as unknown, never $0", () => {
    expect(passTable([{ label: "write", model: "m", result: "ok", usage: call(10, 5, 0, false) }])).toContain(
      "| 1 | write | m | ok | 15 | cost unknown |",
    );
  });

  it("a stop says spent and limit, what is undone, which pass stopped, and how to go on", () => {
    const stop = new OttoError(
      "budget_exceeded",
      "Budget reached: spent $0.0061 of $0.0050 (stage research).",
      "Raise the budget and run the stage again: /otto-spec research --spec demo --budget <usd>",
    );
    const result = renderStopReport({
      stage: "research",
      slug: "demo",
      stop,
      spend,
      undone: ["research.md was not written"],
      history: "h.md",
    });
    expect(result.title).toBe("otto-spec: research stopped, budget reached (2.22k tokens, $0.0061)");
    expect(result.output.split("\n")[0]).toBe("## research stopped for demo: budget reached (2.22k tokens, $0.0061)");
    expect(result.output).toContain("Budget reached: spent $0.0061 of $0.0050 (stage research).");
    expect(result.output).toContain("Not done: research.md was not written");
    expect(result.output).toContain("| 1 | write | mock/m1 | done |");
    expect(result.output).toContain("| 2 | review | mock/m2 | stopped by the budget |");
    expect(result.output).toMatch(/Next step: Raise the budget .* --budget <usd>$/);
  });
});

describe("/otto-spec status", () => {
  const entry = (path: string[], labels: LedgerEntry["labels"], usage: Usage): LedgerEntry => ({
    at: "2026-11-26T10:00:00.000Z",
    session: "s",
    message: "m",
    model: "mock/m1",
    path,
    labels,
    usage,
  });

  it("takes the spec's other runs from the ledger, without the stages (they are in history/) or other repos and specs", () => {
    const labels = { repo: "/r", spec: "demo", run: "2026-11-26T09:00:00.000Z" };
    const entries = [
      entry(["execute demo", "phase 1", "task 1"], labels, write),
      entry(["execute demo", "phase 1", "task 2"], labels, review),
      entry(["execute demo"], { ...labels, run: "2026-11-26T11:00:00.000Z" }, write),
      entry(["stage research", "write"], labels, write),
      entry(["build demo", "stage design", "write"], labels, write),
      entry(["execute demo"], { ...labels, repo: "/other" }, write),
      entry(["execute other"], { ...labels, spec: "other" }, write),
    ];
    expect(flowRuns(entries, "/r", "demo")).toEqual([
      { name: "execute demo", run: "2026-11-26T09:00:00.000Z", usage: total },
      { name: "execute demo", run: "2026-11-26T11:00:00.000Z", usage: write },
    ]);
  });

  it("shows each stage's state and spend, the tasks left and the total first", () => {
    const record = (stage: string, usage?: Usage) => ({
      stage,
      at: "2026-11-26T10:00:00.000Z",
      outcome: `wrote ${stage}`,
      ...(usage ? { usage } : {}),
    });
    const tasks =
      "# Tasks\n\n## Task 1: A\n- **id**: t1\n- **status**: completed\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: A.\n\n## Task 2: B\n- **id**: t2\n- **status**: pending\n- **parallel_group**: 2\n- **depends_on**: [t1]\n- **description**: B.\n";
    const { output, title } = renderStatus({
      slug: "demo",
      present: new Set(["requirements", "tasks"]),
      tasks,
      records: [record("add", write), record("requirements", review), record("task-generate"), record("run", write)],
      flows: [{ name: "execute demo", run: "2026-11-26T09:00:00.000Z", usage: review }],
    });
    const all = add(add(total, write), review);
    expect(title).toBe("otto-spec: demo status (4.45k tokens, $0.01)");
    expect(output.split("\n")[0]).toBe("## Spec demo: 4.45k tokens, $0.01 spent");
    expect(output).toContain("| requirements | written | 2 | 2026-11-26 10:00 wrote requirements | 2.22k | $0.0061 |");
    expect(output).toContain("| research | not written | 0 | - | - | - |");
    expect(output).toContain("| tasks | 2 tasks: 1 done, 1 left | 1 | 2026-11-26 10:00 wrote task-generate | - | - |");
    expect(output).toContain("| 2026-11-26 09:00:00 | execute demo | 1.12k | $0.0015 |");
    expect(output).toContain("Note: 1 stage run(s) on record without their spend");
    expect(all.requests).toBe(4);
  });
});

describe("a stage under a flow whose budget is reached", () => {
  it("opens no session, writes nothing, reports the stop as budget_exceeded, and leaves the notification to that flow", async () => {
    const env = fakeSpec(() => undefined);
    try {
      env.write("rl", { "requirements.md": REQUIREMENTS });
      const notified: string[] = [];
      env.deps.notify = async (event) => void notified.push(event.title);
      const plan = new Account("build rl", { budget: { usd: 1 } });
      plan.charge("acme/primary-1", call(10, 10, 1.5));
      const error = await withAccount(plan, () => runDocumentStage(env.deps, "research", "rl")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StageStopped);
      expect((error as StageStopped).code).toBe("budget_exceeded");
      expect((error as StageStopped).result.output).toContain(
        "Not done: research.md was not written: every spec file is as it was before the stage",
      );
      expect((error as StageStopped).result.output).toContain("Budget reached: spent $1.50 of $1.00 (build rl).");
      expect(env.calls).toEqual([]);
      expect(env.exists("rl", "research.md")).toBe(false);
      expect(notified).toEqual([]);
      // The stop is on record with the spec, spend and all.
      const [record] = env.history("rl");
      expect(env.read("rl", `history/${record ?? ""}`)).toContain("- **outcome**: stopped: Budget reached");
    } finally {
      env.cleanup();
    }
  });
});
