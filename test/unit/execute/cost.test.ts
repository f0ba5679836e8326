import { describe, expect, it } from "vitest";
import { Account, withAccount, ZERO_USAGE, type Usage } from "../../../src/cost/index.ts";
import { budgetStopLines, budgetWords, childAccount, costLine, estimateLine, usageDetail } from "../../../src/execute/cost.ts";
import { renderReport, type RunReport } from "../../../src/execute/progress.ts";
import { parseTasks } from "../../../src/spec/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";

const usage = (over: Partial<Usage>): Usage => ({ ...ZERO_USAGE, ...over });

describe("execute's spend lines", () => {
  it("a history record's cost line has the short form and the exact figures", () => {
    const u = usage({ requests: 3, input: 3020, output: 600, usd: 0.00612 });
    expect(usageDetail(u)).toBe("3,620 tokens (input 3,020, output 600), 3 calls, $0.006120");
    expect(costLine(u)).toBe("3.62k tokens, $0.0061 — 3,620 tokens (input 3,020, output 600), 3 calls, $0.006120");
    expect(usageDetail(usage({ requests: 1, input: 10, output: 5, reasoning: 2, cacheRead: 7, cacheWrite: 1, usd: 0 }))).toBe(
      "25 tokens (input 10, output 5, reasoning 2, cache read 7, cache write 1), 1 call, $0.000000",
    );
  });

  it("calls without a price are cost unknown, never $0", () => {
    expect(usageDetail(usage({ requests: 2, input: 100, output: 20, unpriced: 2 }))).toBe(
      "120 tokens (input 100, output 20), 2 calls, cost unknown (no price for the model)",
    );
    expect(costLine(usage({ requests: 2, input: 100, output: 20, usd: 0.5, unpriced: 1 }))).toContain("≥ $0.500000");
  });

  it("the budget in words", () => {
    expect(budgetWords(undefined)).toBe("none");
    expect(budgetWords({ usd: 1 })).toBe("$1.00");
    expect(budgetWords({ tokens: 200_000 })).toBe("200.0k tokens");
    expect(budgetWords({ usd: 2.5, tokens: 3000 })).toBe("$2.50 or 3.00k tokens");
  });

  it("the estimate before a run: the median task times the tasks left, beside the budget; nothing without records", () => {
    expect(estimateLine(undefined, 3, { usd: 1 })).toBeUndefined();
    const estimate = { tasks: 7, median: usage({ requests: 4, input: 9000, output: 1000, usd: 0.04 }) };
    expect(estimateLine(estimate, 3, { usd: 1 })).toBe(
      "Comparable tasks here cost $0.04 each (median of 7); 3 tasks left ≈ $0.12; budget $1.00",
    );
    expect(estimateLine(estimate, 1, undefined)).toBe(
      "Comparable tasks here cost $0.04 each (median of 7); 1 task left ≈ $0.04; budget none",
    );
    const unpriced = { tasks: 2, median: usage({ requests: 4, input: 9000, output: 1000, unpriced: 4 }) };
    expect(estimateLine(unpriced, 2, { tokens: 50_000 })).toBe(
      "Comparable tasks here cost 10.0k tokens (cost unknown) each (median of 2); 2 tasks left ≈ 20.0k tokens; budget 50.0k tokens",
    );
  });

  it("a budget stop says what was spent, what is undone and how to resume", () => {
    expect(
      budgetStopLines({
        spent: "spent 3.60k of 3.00k tokens",
        undone: ["task-002 (pending)", "phase 1 (not committed)"],
        resume: "/otto-spec execute --spec demo --budget <more>",
      }),
    ).toEqual([
      "Budget reached: spent 3.60k of 3.00k tokens. No new model call was started; sessions in flight were stopped.",
      "Left undone: task-002 (pending), phase 1 (not committed)",
      "Resume: /otto-spec execute --spec demo --budget <more> (completed tasks are kept; a resumed run gets a new budget)",
    ]);
  });

  it("childAccount is a child of the work's account, or a root outside any", () => {
    const run = new Account("execute demo", { labels: { spec: "demo" } });
    const task = withAccount(run, () => childAccount("task t1"));
    expect(task.path).toEqual(["execute demo", "task t1"]);
    expect(task.labels.spec).toBe("demo");
    expect(childAccount("task t2").path).toEqual(["task t2"]);
  });
});

describe("the execute summary with spend", () => {
  const list = parseTasks(
    tasksMd([
      ["t1", "completed", 1, [], "First"],
      ["t2", "pending", 1, [], "Second"],
    ]),
  ).tasks;
  const base: RunReport = { slug: "demo", list, phases: [], recovered: [], cancelled: false, notes: [], durationMs: 1000 };

  it("names the total on its first line, the spend per task and a total row", () => {
    const t1 = usage({ requests: 2, input: 2000, output: 400, usd: 0.012 });
    const report: RunReport = {
      ...base,
      usage: usage({ requests: 5, input: 5000, output: 1000, usd: 0.03 }),
      phases: [
        {
          group: 1,
          results: [
            {
              id: "t1",
              title: "First",
              group: 1,
              status: "completed",
              attempts: 1,
              durationMs: 500,
              summary: "done",
              history: [],
              dialogs: [],
              usage: t1,
            },
          ],
          skipped: [],
          steps: [],
          commit: "abc1234",
          usage: usage({ requests: 5, input: 5000, output: 1000, usd: 0.03 }),
        },
      ],
    };
    const out = renderReport(report).split("\n");
    expect(out[0]).toBe("## otto-spec execute: demo — 6.00k tokens, $0.03");
    expect(out.find((l) => l.startsWith("| 1 | t1 |"))).toMatch(/\| 2\.40k \| \$0\.01 \|$/);
    expect(out.find((l) => l.startsWith("| 1 | t2 |"))).toMatch(/\| - \| - \|$/);
    expect(out.find((l) => l.includes("**total**"))).toMatch(/\| 6\.00k \| \$0\.03 \|$/);
    expect(out).toContain("Phase 1: committed abc1234 · 6.00k tokens, $0.03");
  });

  it("a budget stop comes right after the first line and sets the next step", () => {
    const report: RunReport = {
      ...base,
      usage: usage({ requests: 3, input: 3000, output: 600, usd: 0.02 }),
      budget: { tokens: 3000 },
      budgetStop: {
        spent: "spent 3.60k of 3.00k tokens",
        undone: ["t2 (pending)"],
        resume: "/otto-spec execute --spec demo --budget <more>",
      },
    };
    const out = renderReport(report).split("\n");
    expect(out[2]).toBe("Budget reached: spent 3.60k of 3.00k tokens. No new model call was started; sessions in flight were stopped.");
    expect(out).toContain("Budget: 3.00k tokens");
    expect(out.at(-1)).toBe(
      "Next step: the budget was reached; run /otto-spec execute --spec demo --budget <more> to resume (completed tasks are not run again)",
    );
  });

  it("the estimate before the run, when there is one", () => {
    expect(
      renderReport({ ...base, estimate: "Comparable tasks here cost $0.04 each (median of 7); 1 task left ≈ $0.04; budget none" }),
    ).toContain("\nBefore the run: Comparable tasks here cost $0.04 each");
  });
});
