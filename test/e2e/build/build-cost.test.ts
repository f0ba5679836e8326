import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatUsage, readLedger, sumUsage, ZERO_USAGE, type Usage } from "../../../src/cost/index.ts";
import { slashCommand, useE2E, type RecordedRequest } from "../../support/index.ts";
import { buildKindOf, buildPrompts, builderModel, oneTaskPerTurn, tasksMd } from "../build/builder-model.ts";

const SPEC = ".otto/specs/demo";
const OTTO = { models: { primary: "mock/m1", secondary: "mock/m2" } };
/** Dollars per million tokens: OpenCode prices every message of mock/m1 with it. */
const PRICE = { provider: { mock: { models: { m1: { cost: { input: 3, output: 15 } }, m2: { cost: { input: 1, output: 5 } } } } } };

function state(
  project: string,
): Record<string, unknown> & { spend?: Usage; iterations?: Array<{ iteration: number; task?: string; usage: Usage }> } {
  return JSON.parse(fs.readFileSync(path.join(project, ".otto/build/demo.json"), "utf8")) as ReturnType<typeof state>;
}

/** What the scripted model served the builder session (otto's child), as OpenCode prices it. */
function served(requests: readonly RecordedRequest[]): Usage {
  return sumUsage(
    requests
      .filter((r) => !r.isTitle && buildKindOf(r.lastUser) !== undefined && r.usage)
      .map((r) => {
        const input = r.usage?.prompt_tokens ?? 0;
        const output = r.usage?.completion_tokens ?? 0;
        return { ...ZERO_USAGE, requests: 1, input, output, usd: (input * 3 + output * 15) / 1e6 };
      }),
  );
}

describe("/otto-build: what it costs", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("the summary's total, its per-turn rows and the state's spend are what the builder was served, to the token and the cent", async () => {
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", [`${SPEC}/tasks.md`]: tasksMd(["First", "Second"]) },
      ottoConfig: { ...OTTO, spec: { verify: ["test -f src/done-2.txt"] } },
      config: PRICE,
    });
    e2e.model.usage = (req) => ({ prompt_tokens: 1000 + req.seq, completion_tokens: 200, total_tokens: 1200 + req.seq });
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo"], { timeoutMs: 120_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "continue", "verify"]);

    const expected = served(e2e.model.requests);
    expect(expected.requests).toBe(5);
    const spend = state(ws.project).spend;
    expect(spend).toMatchObject({
      requests: expected.requests,
      input: expected.input,
      output: expected.output,
      reasoning: 0,
      cacheRead: 0,
      unpriced: 0,
    });
    expect(spend?.usd).toBeCloseTo(expected.usd, 9);
    // One record per turn, with the task it worked; they add up to the total.
    const turns = state(ws.project).iterations ?? [];
    expect(turns.map((t) => [t.iteration, t.task])).toEqual([
      [1, "task-001"],
      [2, "task-002"],
      [3, undefined],
    ]);
    expect(sumUsage(turns.map((t) => t.usage)).input).toBe(expected.input);

    // The summary's first line names the total; the table has a row per turn and the total.
    expect(run.stdout).toContain(`## otto build: spent ${formatUsage(expected)}`);
    expect(run.stdout).toMatch(/\| demo \| 1 \| task-001 \| 2\.\d\dk \| \$0\.01 \|/);
    expect(run.stdout).toContain(`| **total** |  |  | ${formatUsage(expected).replace(" tokens, ", " | ")} |`);
    expect(run.stdout).toContain("done and verified in 3 turn(s)");

    // The ledger has every call, under the run, the turn and the task, labelled for the report.
    const ledger = (await readLedger(path.join(ws.dirs.dataHome, "otto", "cost", "ledger.jsonl"))).filter((e) => e.labels.build === "demo");
    expect(ledger).toHaveLength(5);
    expect(ledger[0]).toMatchObject({ path: ["build demo", "iteration 1", "task task-001"], labels: { repo: ws.project, build: "demo" } });
    expect(sumUsage(ledger.map((e) => e.usage)).input).toBe(expected.input);
  });

  it("stops at --budget with the state resumable; the resumed build completes under a new budget and the old spend stays on record", async () => {
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", [`${SPEC}/tasks.md`]: tasksMd(["First", "Second", "Third"]) },
      ottoConfig: { ...OTTO, spec: { verify: ["test -f src/done-3.txt"] } },
      config: PRICE,
    });
    e2e.model.usage = (req) => ({ prompt_tokens: 1000 + req.seq, completion_tokens: 200, total_tokens: 1200 + req.seq });
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    // A turn is two calls of about $0.006 each: the budget is reached in the second turn.
    const stopped = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo", "--budget=0.015"], { timeoutMs: 120_000 });
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/stopped: Budget reached: spent \$0\.0\d of \$0\.0[12] \(build demo\)/);
    expect(stopped.stdout).toContain("left undone:");
    expect(stopped.stdout).toContain("--budget <usd> to resume");
    const first = served(e2e.model.requests);
    const afterStop = state(ws.project);
    expect(afterStop).toMatchObject({ status: "stopped", spend: { requests: first.requests, input: first.input, output: first.output } });
    expect(afterStop.spend?.usd).toBeCloseTo(first.usd, 9);
    expect(first.usd).toBeGreaterThanOrEqual(0.015);
    // No call started after the budget was reached: the last one is what reached it.
    expect(first.usd - (0.006 + 0.0001)).toBeLessThan(0.015);
    expect((await ws.repo.log()).map((c) => c.subject)).toEqual(["Initial commit"]);

    e2e.model.script(...slashCommand("otto_build"));
    const status = await e2e.run(ws, ["run", "--command", "otto-build", "--", "status"], { timeoutMs: 60_000 });
    expect(status.stdout).toContain(`| spec demo | stopped |`);
    expect(status.stdout).toContain(formatUsage(first));

    e2e.model.script(...slashCommand("otto_build"));
    const before = e2e.model.requests.length;
    const resumed = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo", "--budget=1"], { timeoutMs: 120_000 });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("done and verified");
    // The first run's tasks are on the ledger now: the resumed run says what a task costs here.
    expect(resumed.stdout).toMatch(
      /comparable tasks here cost \$0\.\d+ each \(the median of \d+ on record\): \d task\(s\) left ≈ \$0\.\d+; budget in force: \$1\.00\./,
    );
    const second = served(e2e.model.requests.slice(before));
    // This run's total is its own spend; the state keeps both runs'.
    expect(resumed.stdout).toContain(`## otto build: spent ${formatUsage(second)} of a budget of $1.00`);
    const done = state(ws.project);
    expect(done).toMatchObject({
      status: "done",
      spend: { requests: first.requests + second.requests, input: first.input + second.input },
    });
    expect(done.spend?.usd).toBeCloseTo(first.usd + second.usd, 9);
    expect((await ws.repo.log()).map((c) => c.subject)[0]).toBe("feat(demo): implementation complete");
  });
});
