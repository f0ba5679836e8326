import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ledgerFile, readLedger } from "../../../src/cost/index.ts";
import { delay, slashCommand, text, useE2E, type RecordedRequest } from "../../support/index.ts";
import { execModel, kindOf, writes } from "../execute/exec-model.ts";
import { specFiles, taskIdOf, tasksMd } from "../execute/kinds.ts";

/*
 * What execute costs, through real OpenCode: the scripted model reports usage on every answer,
 * OpenCode prices it from the workspace's opencode.json, and otto's figures (the summary, the
 * history records, tasks.md, the ledger) must equal what the model server served to otto's child
 * sessions. A budget stops a run cleanly: resumable state, a summary that says so, a clean exit.
 */

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;
// Dollars per million tokens, as opencode.json takes them.
const PRICES: Record<string, { input: number; output: number }> = { m1: { input: 3, output: 15 }, m2: { input: 1, output: 5 } };
const PRICED = { provider: { mock: { models: { m1: { cost: PRICES.m1 }, m2: { cost: PRICES.m2 } } } } };

interface Spend {
  requests: number;
  tokens: number;
  input: number;
  output: number;
  usd: number;
}

/** Requests of otto's child sessions: not title requests, not the slash command's own turn (its prompt carries `<args>`). */
const ottos = (requests: readonly RecordedRequest[]): RecordedRequest[] =>
  requests.filter((r) => !r.isTitle && !r.lastUser.includes("<args>") && !r.aborted);

function spend(requests: readonly RecordedRequest[]): Spend {
  const out: Spend = { requests: 0, tokens: 0, input: 0, output: 0, usd: 0 };
  for (const r of requests) {
    const u = r.usage;
    if (!u) throw new Error(`request ${r.seq} was served no usage`);
    const price = PRICES[r.model];
    if (!price) throw new Error(`no price for ${r.model}`);
    out.requests++;
    out.input += u.prompt_tokens;
    out.output += u.completion_tokens;
    out.tokens += u.prompt_tokens + u.completion_tokens;
    out.usd += (u.prompt_tokens * price.input + u.completion_tokens * price.output) / 1e6;
  }
  return out;
}

const k = (n: number): string =>
  n < 1000
    ? String(n)
    : n < 10_000
      ? `${(n / 1000).toFixed(2)}k`
      : n < 1_000_000
        ? `${(n / 1000).toFixed(1)}k`
        : `${(n / 1e6).toFixed(2)}M`;
const usd = (n: number): string => (n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);

/** The `- **cost**:` line of a history record, parsed: exact tokens, input, output, calls and dollars. */
function costOf(record: string): Spend {
  const m = /- \*\*cost\*\*: .* — ([\d,]+) tokens \(input ([\d,]+), output ([\d,]+)\), (\d+) calls?, \$([\d.]+)/.exec(record);
  if (!m) throw new Error(`no cost line in:\n${record.slice(0, 600)}`);
  const n = (s: string | undefined): number => Number((s ?? "").replace(/,/g, ""));
  return { tokens: n(m[1]), input: n(m[2]), output: n(m[3]), requests: n(m[4]), usd: Number(m[5]) };
}

const statusOf = (tasks: string, id: string): string | undefined =>
  new RegExp(`- \\*\\*id\\*\\*: ${id}\\n- \\*\\*status\\*\\*: (\\w+)`).exec(tasks)?.[1];

describe("execute: what a run costs, and budgets that stop it cleanly", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("the summary, history records, tasks.md and the ledger equal the usage the model served to otto's sessions", async () => {
    const ws = await e2e.workspace({
      config: PRICED,
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "Write the first greeting"],
          ["task-002", "pending", 1, [], "Write the second greeting"],
          ["task-003", "pending", 2, ["task-001", "task-002"], "Combine the greetings"],
        ]),
      ),
      ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" }, spec: { task_timeout: "20s" } },
    });
    // Large enough that every task costs more than a cent; different per request, so a miscount shows.
    e2e.model.usage = (req) => ({
      prompt_tokens: 10_000 + req.seq,
      completion_tokens: 2_000 + (req.seq % 7),
      total_tokens: 12_000 + req.seq + (req.seq % 7),
    });
    e2e.model.script(...slashCommand("otto_spec"), execModel(ws.project));

    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 240_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Progress: 3/3 completed");

    const served = ottos(e2e.model.requests);
    const total = spend(served);
    const ofTask = (id: string) =>
      served.filter((r) => (kindOf(r) === "execute-task" || kindOf(r) === "task-briefing") && taskIdOf(r.lastUser) === id);

    // The first line names the run's total; a row per task and a total row carry tokens and cost.
    expect(run.stdout).toContain(`## otto-spec execute: ${SLUG} — ${k(total.tokens)} tokens, ${usd(total.usd)}`);
    for (const id of ["task-001", "task-002", "task-003"]) {
      const t = spend(ofTask(id));
      expect(t.requests).toBeGreaterThan(1);
      const row = run.stdout.split("\n").find((l) => l.includes(`| ${id} |`)) ?? "";
      expect(row, run.stdout).toMatch(new RegExp(`\\| ${k(t.tokens)} \\| \\${usd(t.usd)} \\|$`));
      // tasks.md records the task's spend beside its evidence.
      expect(ws.readFile(`${SPEC}/tasks.md`)).toContain(`- **id**: ${id}`);
    }
    expect(run.stdout).toMatch(new RegExp(`\\| \\*\\*total\\*\\* \\|.*\\| ${k(total.tokens)} \\| \\${usd(total.usd)} \\|`));
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    for (const id of ["task-001", "task-002", "task-003"]) {
      const t = spend(ofTask(id));
      const section = tasks.slice(tasks.indexOf(`- **id**: ${id}`)).split("## Task")[0] ?? "";
      expect(section).toContain(`- **cost**: ${k(t.tokens)} tokens, ${usd(t.usd)}`);
    }

    // Each attempt's record: exactly the executor requests of its task (one attempt each here).
    const historyDir = path.join(ws.project, SPEC, "history");
    const files = fs.readdirSync(historyDir);
    const runs = files.filter((f) => f.startsWith("run-")).map((f) => fs.readFileSync(path.join(historyDir, f), "utf8"));
    expect(runs).toHaveLength(3);
    for (const record of runs) {
      const id = /- \*\*task\*\*: (\S+):/.exec(record)?.[1] ?? "";
      const want = spend(ofTask(id).filter((r) => kindOf(r) === "execute-task"));
      const got = costOf(record);
      expect({ ...got, usd: Math.round(got.usd * 1e4) }).toEqual({ ...want, usd: Math.round(want.usd * 1e4) });
    }
    // Each phase's record: every request of the phase (phases run one after the other).
    const phase2Start = served.find((r) => taskIdOf(r.lastUser) === "task-003")?.seq ?? 0;
    const docsStart = served.find((r) => kindOf(r) === "docs-align")?.seq ?? Infinity;
    const phaseRecord = (n: number) =>
      fs.readFileSync(path.join(historyDir, files.find((f) => f.startsWith(`phase-${n}-`)) ?? "missing"), "utf8");
    for (const [n, reqs] of [
      [1, served.filter((r) => r.seq < phase2Start)],
      [2, served.filter((r) => r.seq >= phase2Start && r.seq < docsStart)],
    ] as const) {
      const got = costOf(phaseRecord(n));
      const want = spend(reqs);
      expect({ ...got, usd: Math.round(got.usd * 1e4) }, `phase ${n}`).toEqual({ ...want, usd: Math.round(want.usd * 1e4) });
    }

    // The ledger holds every call of the run, labelled, with the account path down to the attempt.
    const ledger = (await readLedger(ledgerFile(ws.env))).filter((e) => e.labels.spec === SLUG);
    expect(ledger).toHaveLength(total.requests);
    expect(ledger.reduce((sum, e) => sum + e.usage.input + e.usage.output, 0)).toBe(total.tokens);
    expect(ledger.reduce((sum, e) => sum + e.usage.usd, 0)).toBeCloseTo(total.usd, 6);
    expect(ledger.every((e) => e.labels.repo !== undefined && e.labels.run !== undefined)).toBe(true);
    expect(ledger.some((e) => e.path.join(" / ") === `execute ${SLUG} / phase 1 / task task-001 / attempt 1`)).toBe(true);
    expect(ledger.some((e) => e.path.join(" / ") === `execute ${SLUG} / phase 2 / review gate`)).toBe(true);
    expect(ledger.some((e) => e.path.join(" / ") === `execute ${SLUG} / docs alignment`)).toBe(true);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 300_000);

  it("--max-tokens stops a run mid-phase: the interrupted task back to pending, nothing committed, the lock released; a resumed run with a bigger budget finishes", async () => {
    const ws = await e2e.workspace({
      config: PRICED,
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "Write the first greeting"],
          ["task-002", "pending", 1, [], "Write the second greeting"],
          ["task-003", "pending", 2, ["task-001", "task-002"], "Combine the greetings"],
        ]),
      ),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: {
          task_timeout: "30s",
          max_parallel_tasks: 1,
          task_briefing: false,
          review_gate: false,
          external_assumptions: false,
          domain_hardening: false,
        },
      },
    });
    e2e.model.usage = () => ({ prompt_tokens: 1_000, completion_tokens: 200, total_tokens: 1_200 });
    let slow = true;
    e2e.model.script(
      { ...slashCommand("otto_spec")[0]!, times: Infinity },
      { ...slashCommand("otto_spec")[1]!, times: Infinity },
      execModel(ws.project, (kind, req) => {
        // task-002's follow-up answers slowly: the budget is reached by its first call and stops it mid-turn.
        if (kind === "execute-task" && slow && taskIdOf(req.lastUser) === "task-002" && req.lastRole === "tool")
          return delay(5_000, text("Created src/task-002.txt."));
        // Resumed: the interrupted turn's write is already in the tree, so this one writes something new.
        if (kind === "execute-task" && !slow && taskIdOf(req.lastUser) === "task-002")
          return writes(ws.project, req, { "src/task-002.txt": "task-002, resumed\n" }, "Updated src/task-002.txt.");
        return undefined;
      }),
    );

    // task-001 takes two calls (2.4k tokens); task-002's first call passes 3k. `--flag=value`: OpenCode 1.18.33's `run` fails on a bare number after `--`.
    const stopped = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute", "--max-tokens=3000"], { timeoutMs: 120_000 });
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(new RegExp(`## otto-spec execute: ${SLUG} — 3\\.60k tokens, \\$0\\.0\\d+`));
    expect(stopped.stdout).toContain("Budget reached: spent 3.60k of 3.00k tokens.");
    expect(stopped.stdout).toContain(
      "Left undone: task-002 (pending), task-003 (pending), phase 1 (not committed), phase 2 (not committed), documentation alignment",
    );
    expect(stopped.stdout).toContain(`Resume: /otto-spec execute --spec ${SLUG} --budget <more>`);
    expect(stopped.stdout).toContain("Phase 1: not committed (stopped: the budget was reached)");
    let tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(["task-001", "task-002", "task-003"].map((id) => statusOf(tasks, id))).toEqual(["completed", "pending", "pending"]);
    expect(tasks).not.toContain("last_error");
    // Nothing of the half-done phase was committed; the lock is gone; the interrupted attempt's spend is on record.
    expect((await ws.repo.log()).map((c) => c.subject)).toEqual(["Initial commit"]);
    expect(fs.readdirSync(path.join(ws.project, ".git")).filter((f) => f.startsWith("otto-execute-") && f.endsWith(".lock"))).toEqual([]);
    const history = path.join(ws.project, SPEC, "history");
    const interrupted = fs
      .readdirSync(history)
      .filter((f) => f.startsWith("run-"))
      .map((f) => fs.readFileSync(path.join(history, f), "utf8"))
      .find((r) => r.includes("- **task**: task-002"));
    expect(interrupted).toMatch(/- \*\*result\*\*: interrupted \(the task goes back to pending\): Budget reached/);
    expect(interrupted).toMatch(/- \*\*cost\*\*: 1\.20k tokens/);
    // Every call the run was charged is in the ledger: task-001's two and the interrupted one.
    const before = (await readLedger(ledgerFile(ws.env))).length;
    expect(before).toBe(3);

    // task run under a budget its first call passes: stopped the same way, the task still pending.
    const one = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "task", "run", "--id", "task-002", "--max-tokens=1000"], {
      timeoutMs: 120_000,
    });
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/## otto-spec task run: task-002 pending \(1 attempt, [\d.]+s\) — 1\.20k tokens, \$0\.0\d+/);
    expect(one.stdout).toContain("Budget reached: spent 1.20k of 1.00k tokens.");
    expect(one.stdout).toContain("Left undone: task-002 (pending)");
    expect(statusOf(ws.readFile(`${SPEC}/tasks.md`), "task-002")).toBe("pending");
    expect((await ws.repo.log()).map((c) => c.subject)).toEqual(["Initial commit"]);
    expect(fs.readdirSync(path.join(ws.project, ".git")).filter((f) => f.startsWith("otto-execute-") && f.endsWith(".lock"))).toEqual([]);

    // Resumed with a bigger budget: task-001 is not run again, the rest completes; the old spend stays in the ledger.
    slow = false;
    const mark = e2e.model.requests.length;
    const resumed = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute", "--budget=5"], { timeoutMs: 180_000 });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("Progress: 3/3 completed");
    expect(resumed.stdout).not.toContain("Budget reached");
    // Three tasks on record: task-001 and the interrupted task-002 of the first run, task-002 of `task run`.
    expect(resumed.stdout).toMatch(
      /Before the run: Comparable tasks here cost \$[\d.]+ each \(median of 3\); 2 tasks left ≈ \$[\d.]+; budget \$5\.00/,
    );
    expect(e2e.model.requests.slice(mark).some((r) => kindOf(r) === "execute-task" && taskIdOf(r.lastUser) === "task-001")).toBe(false);
    tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(["task-001", "task-002", "task-003"].map((id) => statusOf(tasks, id))).toEqual(["completed", "completed", "completed"]);
    const ledger = await readLedger(ledgerFile(ws.env));
    expect(ledger.length).toBeGreaterThan(before);
    expect(new Set(ledger.map((e) => e.labels.run)).size).toBeGreaterThanOrEqual(2);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 360_000);
});
