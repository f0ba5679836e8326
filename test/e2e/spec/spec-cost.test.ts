import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatUsage, formatUsd, type Usage } from "../../../src/cost/index.ts";
import { parseSpendSection } from "../../../src/spec/index.ts";
import { hang, slashCommand, toolCall, useE2E, type RecordedRequest } from "../../support/index.ts";
import { REQUIREMENTS, RESEARCH_DRAFT, RESEARCH_FINAL } from "../spec/fixtures.ts";
import { doc, envelope, requestsOf, specModel } from "../spec/spec-model.ts";

/** $3 / $15 per million input / output tokens for m1, $1 / $5 for m2 (opencode.json `cost`). */
const PRICES = { m1: { input: 3, output: 15 }, m2: { input: 1, output: 5 } } as const;
const PRICED = { provider: { mock: { models: { m1: { cost: PRICES.m1 }, m2: { cost: PRICES.m2 } } } } };
const MODELS = { models: { primary: "mock/m1", secondary: "mock/m2" } };
const SLUG = "rate-limiting";
const SPEC = `.otto/specs/${SLUG}`;
/** The machine is shared: a headless stage of three sessions can take over a minute. */
const SLOW = { timeoutMs: 240_000 };
// Headless, a flag's value is joined to it (`--budget=0.007`): OpenCode's CLI turns a bare number
// after `--` into a number, and then fails on it (docs/cost.md).
const REVISE = envelope({
  verdict: "revise",
  summary: "Risks missing.",
  issues: [{ severity: "major", location: "Risks", problem: "No restart risk.", fix: "Add it." }],
});

/** What the model server served to otto's child sessions: no title request, not the slash command's own turn. */
function served(requests: readonly RecordedRequest[]): Usage {
  const ours = requests.filter((r) => !r.isTitle && r.usage && !JSON.stringify(r.messages).includes("<args>"));
  const usd = ours.reduce((sum, r) => {
    const price = PRICES[r.model as keyof typeof PRICES];
    return sum + (r.usage!.prompt_tokens * price.input + r.usage!.completion_tokens * price.output) / 1e6;
  }, 0);
  const input = ours.reduce((n, r) => n + r.usage!.prompt_tokens, 0);
  const output = ours.reduce((n, r) => n + r.usage!.completion_tokens, 0);
  return { requests: ours.length, input, output, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd: Math.round(usd * 1e6) / 1e6, unpriced: 0 };
}

function historyFiles(project: string): string[] {
  const dir = path.join(project, SPEC, "history");
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .sort()
        .map((name) => fs.readFileSync(path.join(dir, name), "utf8"))
    : [];
}

describe("/otto-spec accounting and budgets through real OpenCode", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("a stage's output, title and history record hold the usage served to its sessions, to the token and the cent; status sums them", async () => {
    const ws = await e2e.workspace({ ottoConfig: MODELS, config: PRICED, files: { [`${SPEC}/requirements.md`]: REQUIREMENTS } });
    e2e.model.usage = (req) => ({ prompt_tokens: 1000 + req.seq * 7, completion_tokens: 100 + req.seq, total_tokens: 1100 + req.seq * 8 });
    e2e.model.script(
      ...slashCommand("otto_spec"),
      specModel((kind) => (kind === "requirements" || kind === "refine" ? doc(REQUIREMENTS) : kind === "review" ? REVISE : undefined)),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "requirements"], SLOW);
    expect(run.exitCode, run.stderr).toBe(0);
    const expected = served(e2e.model.requests);
    expect(expected.requests).toBe(3); // write (m1), review (m2), refine (m1)

    // The output's first line names the total; the table has a row per pass and the total.
    expect(run.stdout).toContain(`## requirements.md refined for ${SLUG} (${formatUsage(expected)})`);
    expect(run.stdout).toMatch(/\| 1 \| write \| mock\/m1 \| generated requirements\.md \| [\d.]+k \| \$0\.\d+ \|/);
    expect(run.stdout).toMatch(/\| 2 \| review \| mock\/m2 \| revise: 1 major \| [\d.]+k \| \$0\.\d+ \|/);
    expect(run.stdout).toMatch(/\| 3 \| refine \| mock\/m1 \| incorporated feedback/);
    expect(run.stdout).toContain(`|  | total |  | 3 model calls | ${formatUsage(expected).replace(" tokens, ", " | ")} |`);

    // The history record holds the exact figures: tokens as served, dollars to the micro-dollar.
    const [record = ""] = historyFiles(ws.project);
    const spend = parseSpendSection(record);
    expect(spend?.usage).toMatchObject({ requests: 3, input: expected.input, output: expected.output, unpriced: 0 });
    expect(Math.round((spend?.usage.usd ?? 0) * 100)).toBe(Math.round(expected.usd * 100));
    expect(spend?.usage.usd).toBeCloseTo(expected.usd, 6);
    const m2 = served(e2e.model.requests.filter((r) => r.model === "m2"));
    expect(spend?.byModel["mock/m2"]).toMatchObject({ requests: 1, input: m2.input, output: m2.output });
    expect(record).toContain(`- **spend**: ${formatUsage(expected)} (3 model calls)`);

    // status: the stage's spend from history/, an execute run from this machine's ledger.
    const ledger = path.join(ws.dirs.dataHome, "otto", "cost", "ledger.jsonl");
    const execute: Usage = { requests: 2, input: 5000, output: 1000, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd: 0.5, unpriced: 0 };
    const repo = fs.realpathSync(ws.project);
    fs.appendFileSync(
      ledger,
      `${JSON.stringify({ at: new Date().toISOString(), session: "ses_x", message: "msg_x", model: "mock/m1", path: ["execute rate-limiting", "phase 1", "task task-001"], labels: { repo, spec: SLUG, run: "2026-11-26T10:00:00.000Z" }, usage: execute })}\n`,
    );
    e2e.model.script(...slashCommand("otto_spec"));
    const status = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "status"], SLOW);
    expect(status.exitCode, status.stderr).toBe(0);
    const total = {
      ...expected,
      requests: expected.requests + 2,
      input: expected.input + 5000,
      output: expected.output + 1000,
      usd: expected.usd + 0.5,
    };
    expect(status.stdout).toContain(`## Spec ${SLUG}: ${formatUsage(total)} spent`);
    expect(status.stdout).toMatch(
      new RegExp(
        `\\| requirements \\| written \\| 1 \\| [^|]+ wrote requirements\\.md[^|]* \\| ${formatUsage(expected).replace(" tokens, ", " \\| ").replace("$", "\\$")} \\|`,
      ),
    );
    expect(status.stdout).toContain("| 2026-11-26 10:00:00 | execute rate-limiting | 6.00k | $0.50 |");
    expect(status.stdout).toContain("| research | not written | 0 | - | - | - |");
    expect(e2e.model.unmatched()).toEqual([]);
  }, 480_000);

  it("a stage stopped by --budget: spent and limit, what is undone, no artifact touched, one notification; the refine never asked", async () => {
    const ws = await e2e.workspace({
      ottoConfig: MODELS,
      config: PRICED,
      files: { [`${SPEC}/requirements.md`]: REQUIREMENTS, [`${SPEC}/research.md`]: RESEARCH_DRAFT },
    });
    const notified = path.join(ws.root, "notified.txt");
    ws.writeOttoConfig({ notify: { command: `printf '%s|%s\\n' "$OTTO_EVENT" "$OTTO_MESSAGE" >> '${notified}'` } }, "user");
    // Each call: 1000 prompt and 200 completion tokens; m1 costs $0.006 a call, m2 $0.002.
    e2e.model.usage = () => ({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 });
    e2e.model.script(
      ...slashCommand("otto_spec"),
      specModel((kind) =>
        kind === "research" ? doc(RESEARCH_FINAL) : kind === "review" ? REVISE : kind === "refine" ? doc(RESEARCH_FINAL) : undefined,
      ),
    );
    {
      const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "research", "--budget=0.007"], SLOW);
      expect(run.exitCode, run.stderr).toBe(0);
      const spent = served(e2e.model.requests);
      expect(spent.requests).toBe(2); // the write and the review; the budget was reached in the review
      expect(requestsOf(e2e.model.turns(), "refine")).toEqual([]);
      expect(run.stdout).toContain(`## research stopped for ${SLUG}: budget reached (${formatUsage(spent)})`);
      expect(run.stdout).toContain(`Budget reached: spent ${formatUsd(spent.usd)} of $0.0070 (stage research).`);
      expect(run.stdout).toContain("Not done: research.md was not refined: every spec file is as it was before the stage");
      expect(run.stdout).toMatch(/\| 2 \| review \| mock\/m2 \| stopped by the budget \|/);
      expect(run.stdout).toContain(
        `Next step: Raise the budget and run the stage again: /otto-spec research --spec ${SLUG} --budget <usd>`,
      );
      // Nothing half-written: research.md as it was, no questions.md, only the history record added.
      expect(ws.readFile(`${SPEC}/research.md`)).toBe(RESEARCH_DRAFT);
      expect(fs.existsSync(path.join(ws.project, SPEC, "questions.md"))).toBe(false);
      const records = historyFiles(ws.project);
      expect(records).toHaveLength(1);
      expect(records[0]).toContain("- **outcome**: stopped: Budget reached");
      expect(parseSpendSection(records[0] ?? "")?.usage).toMatchObject({ requests: 2, input: spent.input, output: spent.output });
      // One notification, naming the stop.
      const lines = fs.readFileSync(notified, "utf8").trim().split("\n");
      expect(lines).toEqual([`human_needed|otto-spec research (${SLUG}) stopped: budget reached`]);
      expect(e2e.model.unmatched()).toEqual([]);
    }
  }, 480_000);

  it("an ad-hoc run stopped by --max-tokens: the session is aborted and kept, the output says spent and limit", async () => {
    const ws = await e2e.workspace({ ottoConfig: MODELS, config: PRICED, files: { [`${SPEC}/requirements.md`]: REQUIREMENTS } });
    e2e.model.usage = () => ({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 });
    // The run reads a file (1.2k tokens: over the budget), and its next request hangs until the stop aborts it.
    e2e.model.script(
      ...slashCommand("otto_spec"),
      specModel((kind) =>
        kind === "spec-run" ? toolCall("read", { filePath: path.join(ws.project, SPEC, "requirements.md") }) : undefined,
      ),
      { label: "after the read", match: (req) => req.lastRole === "tool", reply: hang() },
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "run", "--max-tokens=1000", "What are the risks?"], SLOW);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`## run stopped for ${SLUG}: budget reached`);
    expect(run.stdout).toMatch(/Budget reached: spent 1\.20k of 1\.00k tokens \(stage run\)\./);
    expect(run.stdout).toMatch(/Not done: the request was not finished: session ses_\w+ was stopped and is kept/);
    expect(ws.readFile(`${SPEC}/requirements.md`)).toBe(REQUIREMENTS);
    expect(historyFiles(ws.project).some((r) => r.includes("- **outcome**: stopped: Budget reached"))).toBe(true);
  }, 480_000);
});
