import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "../../../src/cost/index.ts";
import { slashCommand, text, useE2E, type RecordedRequest, type ScriptEntry, type Workspace } from "../../support/index.ts";
import { useForges } from "../pr/forges.ts";

/*
 * What otto spent, through real OpenCode: a priced scripted reviewer model reports its usage, a
 * one-shot /pr-review records it in otto's ledger (the workspace's isolated XDG data dir) beside
 * seeded entries, and /otto-cost reports rows and totals that must equal what the model server
 * served, priced at the configured list price. The provider reports cached prompt tokens, as
 * OpenAI-compatible providers with a prompt cache do: OpenCode records them as cache reads, and the
 * ledger, the review's summary and /otto-cost show them beside the input.
 */

/** Sonnet's list price, cache reads at a tenth of the input. */
const PRICE = { input: 3, output: 15, cache_read: 0.3 };
/** The reviewer's provider has a prompt cache: it reports this many of each call's prompt tokens as cached. */
const CACHED = 600;
const MAIN = Array.from({ length: 10 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join("\n") + "\n";

/** The slash command's two turns (call the tool, echo its output), told apart by the command's template. */
function command(tool: string): ScriptEntry[] {
  return slashCommand(tool).map((entry) => ({ ...entry, times: Infinity, match: { ...(entry.match as object), lastUser: `\`${tool}\`` } }));
}

function seed(
  entry: Partial<LedgerEntry> & Pick<LedgerEntry, "at" | "labels">,
  input: number,
  output: number,
  usd: number,
  priced = true,
): LedgerEntry {
  return {
    session: "ses_seeded",
    message: "msg_seeded",
    model: "vendor/big",
    path: ["seeded"],
    ...entry,
    usage: { requests: 1, input, output, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd: priced ? usd : 0, unpriced: priced ? 0 : 1 },
  };
}

async function prBranch(ws: Workspace, hostedUrl: string): Promise<void> {
  const git = (args: string[]) => ws.repo.git(args);
  await git(["checkout", "-q", "-b", "feature/auth"]);
  ws.writeFiles({ "src/auth.ts": MAIN.replace("export const v5 = 5;", "export const v5 = await fetch(url);") });
  await git(["add", "-A"]);
  await git(["-c", "user.name=dev", "-c", "user.email=dev@example.invalid", "commit", "-q", "-m", "Add auth"]);
  await git(["push", "-q", "origin", "feature/auth"]);
  await git(["checkout", "-q", "main"]);
  await git(["remote", "set-url", "origin", hostedUrl]);
  await git(["config", `url.${ws.repo.remote}.insteadOf`, hostedUrl]);
}

interface JsonReport {
  since: string;
  by: string;
  rows: Array<{
    key: string;
    requests: number;
    input: number;
    cacheRead: number;
    output: number;
    tokens: number;
    usd: number | null;
    unpriced: number;
  }>;
  total: { requests: number; input: number; cacheRead: number; output: number; tokens: number; usd: number; unpriced: number };
  otherRepos: { requests: number; usd: number };
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

describe("/otto-cost through real OpenCode", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("reports this repository's spend per PR and per day from the ledger: the /pr-review run's row equals the served usage at the list price, seeded rows and the window and repository scope hold", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 5, title: "Add auth", branch: "feature/auth" });
    pr.diffLines = { "src/auth.ts": [2, 3, 4, 5, 6, 7, 8] };
    const ws = await e2e.workspace({
      remote: true,
      files: { "src/auth.ts": MAIN },
      userOttoConfig: f.ottoConfig({ models: { reviewers: ["mock/m2"] } }),
      env: f.env,
      config: { provider: { mock: { models: { m2: { cost: PRICE } } } } },
    });
    await prBranch(ws, "https://github.com/octo/app.git");

    // Earlier spend on record: a spec run here 2 days ago, an unpriced call here, another repository, and one from a month ago.
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * 86_400_000).toISOString();
    const seeded = [
      seed({ at: ago(2), labels: { repo: ws.project, spec: "demo", run: ago(2) } }, 10_000, 1_000, 0.045),
      seed({ at: ago(1), labels: { repo: ws.project, spec: "demo" }, model: "local/free" }, 2_000, 100, 0, false),
      seed({ at: ago(1), labels: { repo: "/elsewhere/other", spec: "x" } }, 50_000, 5_000, 0.225),
      seed({ at: ago(30), labels: { repo: ws.project, spec: "old" } }, 90_000, 9_000, 0.405),
    ];
    const ledger = path.join(ws.dirs.dataHome, "otto", "cost", "ledger.jsonl");
    fs.mkdirSync(path.dirname(ledger), { recursive: true });
    fs.writeFileSync(ledger, seeded.map((e) => JSON.stringify(e)).join("\n") + "\n");

    e2e.model.usage = (req) => ({
      prompt_tokens: 1000 + req.seq,
      completion_tokens: 200,
      total_tokens: 1200 + req.seq,
      prompt_tokens_details: { cached_tokens: CACHED },
    });
    const envelope = {
      summary: "Unchecked fetch.",
      comments: [{ file: "src/auth.ts", line: 5, severity: "error", title: "Unchecked fetch", body: "Check the status." }],
    };
    e2e.model.script(...command("otto_pr_review"), ...command("otto_cost"), {
      label: "reviewer",
      match: { model: "m2", lastUser: "You are reviewing a pull request" },
      reply: text(`Read the diff.\nBEGIN_JSON\n${JSON.stringify(envelope)}\nEND_JSON`),
    });

    // The review's calls fall on this UTC day, or on the next when the run crosses midnight.
    const reviewDay = new Date().toISOString().slice(0, 10);
    const review = await e2e.run(ws, ["run", "--command", "pr-review", "--", "https://github.com/octo/app/pull/5"], { timeoutMs: 180_000 });
    expect(review.exitCode, review.stderr).toBe(0);
    // What the model server served the reviewer, priced at $3 / $15 / $0.30 per million input / output / cached tokens.
    const served = e2e.model.requests.filter((r: RecordedRequest) => r.answeredBy === "reviewer");
    expect(served.length).toBeGreaterThan(0);
    const cacheRead = served.reduce((n, r) => n + (r.usage?.prompt_tokens_details?.cached_tokens ?? 0), 0);
    expect(cacheRead).toBe(CACHED * served.length);
    // OpenCode's input tokens are the prompt's uncached part.
    const input = served.reduce((n, r) => n + (r.usage?.prompt_tokens ?? 0), 0) - cacheRead;
    const output = served.reduce((n, r) => n + (r.usage?.completion_tokens ?? 0), 0);
    const usd = round6((input * PRICE.input + cacheRead * PRICE.cache_read + output * PRICE.output) / 1e6);
    const tokens = input + cacheRead + output;
    const k = (n: number) => (n < 1000 ? String(n) : `${(n / 1000).toFixed(2)}k`);
    const dollars = (n: number) => (n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);
    // The review's output names its total first, with the cache reads, and a row per reviewer model.
    expect(review.stdout).toContain(`Review of PR #5: ${k(tokens)} tokens (${k(cacheRead)} cache read), ${dollars(usd)}.`);
    expect(review.stdout).toContain(
      `| mock/m2 | ${served.length} | ${k(input)} | ${k(cacheRead)} | 0 | ${output} | ${k(tokens)} | ${dollars(usd)} |`,
    );
    expect(review.stdout).toContain(
      `| **Total** | ${served.length} | ${k(input)} | ${k(cacheRead)} | 0 | ${output} | ${k(tokens)} | ${dollars(usd)} |`,
    );

    const byPr = await e2e.run(ws, ["run", "--command", "otto-cost", "--", "--by", "pr", "--json"], { timeoutMs: 180_000 });
    expect(byPr.exitCode, byPr.stderr).toBe(0);
    const json = JSON.parse(/\{[\s\S]*\}/.exec(byPr.stdout)?.[0] ?? "{}") as JsonReport;
    expect(json.by).toBe("pr");
    expect(json.rows.find((r) => r.key === "octo/app#5")).toMatchObject({
      requests: served.length,
      input,
      cacheRead,
      output,
      tokens,
      usd,
      unpriced: 0,
    });
    // The seeded spec calls have no PR; the month-old one and the other repository's are left out.
    expect(json.rows.find((r) => r.key === "(none)")).toMatchObject({ requests: 2, input: 12_000, output: 1_100, usd: 0.045, unpriced: 1 });
    expect(json.total).toMatchObject({
      requests: served.length + 2,
      input: input + 12_000,
      cacheRead,
      output: output + 1_100,
      usd: round6(usd + 0.045),
      unpriced: 1,
    });
    expect(json.otherRepos).toMatchObject({ requests: 1, usd: 0.225 });

    const byDay = await e2e.run(ws, ["run", "--command", "otto-cost"], { timeoutMs: 180_000 });
    expect(byDay.exitCode, byDay.stderr).toBe(0);
    const reviewRow = (day: string) =>
      `| ${day} | ${served.length} | ${k(input)} | ${k(cacheRead)} | 0 | ${output} | ${k(tokens)} | ${dollars(usd)} |`;
    const daysSince = [reviewDay, new Date().toISOString().slice(0, 10)];
    expect(
      daysSince.some((day) => byDay.stdout.includes(reviewRow(day))),
      `${byDay.stdout}\nwanted ${reviewRow(reviewDay)}`,
    ).toBe(true);
    expect(byDay.stdout).toContain(`| ${ago(1).slice(0, 10)} | 1 | 2.00k | 0 | 0 | 100 | 2.10k | cost unknown |`);
    expect(byDay.stdout).toContain("1 call(s) used a model without a price");
    expect(byDay.stdout).toContain("1 call(s) in other repositories");

    const all = await e2e.run(ws, ["run", "--command", "otto-cost", "--", "--all", "--since", "60d", "--by", "spec", "--json"], {
      timeoutMs: 180_000,
    });
    const every = JSON.parse(/\{[\s\S]*\}/.exec(all.stdout)?.[0] ?? "{}") as JsonReport;
    expect(every.rows.map((r) => r.key)).toEqual(["old", "x", "demo", "(none)"]);
    expect(every.total.requests).toBe(served.length + 4);

    expect(e2e.model.unmatched()).toEqual([]);
  }, 600_000);
});
