import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, useE2E, type RecordedRequest, type Workspace } from "../../support/index.ts";
import { formatUsage, type LedgerEntry, type Usage } from "../../../src/cost/index.ts";
import { parsePrDocument } from "../../../src/pr/store/document.ts";
import { ottoPr, useForges, type Forges } from "../pr/forges.ts";
import { analysis, BRANCH, cloneOfPr, FIXED, fixer, fixReview, isAnalysis, isFix, isFixReview, KEY, summary } from "../pr/fix-script.ts";

/*
 * What PR work costs, through real OpenCode with a priced scripted model (dollars per million
 * tokens in OpenCode's config, per-request usage from the model server) and the fake GitHub: the
 * spend recorded in the PR document is what the model served, and the watcher's daily caps (read
 * from the ledger) hand a PR to a person, or stop every PR's model work, before any model call.
 */

const PRICE = { input: 3, output: 15 };
const priced = { provider: { mock: { models: { m1: { cost: PRICE } } } } };

const docOf = (ws: Workspace, key = KEY) =>
  parsePrDocument(key, fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "prs", `${key}.md`), "utf8"));
const ledger = (ws: Workspace) => path.join(ws.dirs.dataHome, "otto", "cost", "ledger.jsonl");
const today = () => new Date().toISOString().slice(0, 10);
/** The UTC days a run that started on `before` may record: that day, or today when the run crossed midnight. */
const runDays = (before: string) => [before, today()];

/** What the model server reported for these requests, priced as OpenCode prices them. */
function served(requests: readonly RecordedRequest[]): { input: number; output: number; usd: number } {
  let input = 0;
  let output = 0;
  let usd = 0;
  for (const r of requests) {
    input += r.usage?.prompt_tokens ?? 0;
    output += r.usage?.completion_tokens ?? 0;
    usd += ((r.usage?.prompt_tokens ?? 0) * PRICE.input + (r.usage?.completion_tokens ?? 0) * PRICE.output) / 1e6;
  }
  return { input, output, usd };
}

const cents = (usd: number): number => Math.round(usd * 100);

/** Today's ledger entries, as if the watcher had spent `usd` on `pr` earlier today. */
function seedLedger(ws: Workspace, spends: Array<{ pr: string; usd: number }>): void {
  const at = new Date(Math.max(Date.parse(`${today()}T00:00:01.000Z`), Date.now() - 60_000)).toISOString();
  const entries: LedgerEntry[] = spends.map((s, i) => ({
    at,
    session: `ses_seed${i}`,
    message: `msg_seed${i}`,
    model: "mock/m1",
    path: [`pr fix ${s.pr}`, "fix attempt 1"],
    labels: { repo: s.pr.split("#")[0] ?? "", pr: s.pr, run: at },
    usage: { requests: 1, input: 100_000, output: 10_000, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd: s.usd, unpriced: 0 },
  }));
  fs.mkdirSync(path.dirname(ledger(ws)), { recursive: true });
  fs.writeFileSync(ledger(ws), entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
}

async function setup(e2e: ReturnType<typeof useE2E>, forges: () => Promise<Forges>, prs: number[] = [1]) {
  const f = await forges();
  for (const n of prs) {
    const pr = f.gh.state.addPr({ number: n, title: `Change ${n}`, branch: n === 1 ? BRANCH : `feature/${n}` });
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: "FAIL test/math.test.js\nexpected 3, received -1" }]);
  }
  const ws = await e2e.workspace({
    userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }),
    env: f.env,
    remote: true,
    config: priced,
  });
  await cloneOfPr(ws);
  const { client } = await e2e.serve(ws);
  await assertPluginLoaded(client);
  e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
  for (const n of prs) expect(await ottoPr(client, `add https://github.com/octo/app/pull/${n}`)).toContain("Tracking PR");
  return { f, ws, client };
}

const modelWork = (e2e: ReturnType<typeof useE2E>) => e2e.model.requests.filter((r) => isAnalysis(r) || isFix(r) || isFixReview(r));

describe("what PR work costs and the watcher's daily caps", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("a fix's spend in the PR document is the usage served to its sessions, to the token and the cent; status and the summary show it", async () => {
    const { ws, client } = await setup(e2e, forges);
    e2e.model.usage = (req) => ({
      prompt_tokens: 1000 + req.seq,
      completion_tokens: 200 + (req.seq % 7),
      total_tokens: 1200 + req.seq + (req.seq % 7),
    });
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED));

    const day = today();
    const out = await ottoPr(client, `fix ${KEY}`);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);

    const all = served(modelWork(e2e));
    const attempt = served(e2e.model.requests.filter((r) => isFix(r) || isFixReview(r)));
    expect(all.input).toBeGreaterThan(attempt.input);
    const spend = docOf(ws).data.spend;
    expect(runDays(day)).toContain(spend?.day);
    // Every token and every cent the model served to the analysis, the fix and its review.
    expect(spend?.total.input).toBe(all.input);
    expect(spend?.total.output).toBe(all.output);
    expect(cents(spend?.total.usd ?? -1)).toBe(cents(all.usd));
    expect(spend?.total.usd).toBeCloseTo(all.usd, 6);
    expect(spend?.total.requests).toBe(modelWork(e2e).length);
    expect(spend?.today).toEqual(spend?.total);
    // The attempt's own: the fix session and its review, not the analysis.
    expect(spend?.fix_attempts).toHaveLength(1);
    expect(spend?.fix_attempts[0]?.attempt).toBe(1);
    expect(spend?.fix_attempts[0]?.usage.input).toBe(attempt.input);
    expect(spend?.fix_attempts[0]?.usage.usd).toBeCloseTo(attempt.usd, 6);

    const total = spend?.total as Usage;
    // The fix summary's first line names the total; the attempt's spend is in Fix History.
    expect(out.split("\n")[0]).toBe(`## otto-pr fix: ${KEY} (pushed): spent ${formatUsage(total)}`);
    expect(out).toContain(`attempt 1 ${formatUsage(spend?.fix_attempts[0]?.usage as Usage)}`);
    expect(docOf(ws).sections.find((s) => s.title === "Fix History")?.body).toContain(
      `- **Spend**: ${formatUsage(spend?.fix_attempts[0]?.usage as Usage)}`,
    );
    const status = await ottoPr(client, `status ${KEY}`);
    expect(status).toContain(`Spent: today ${formatUsage(total)}; in all ${formatUsage(total)}`);
    // The ledger has every call, labelled with the PR.
    const entries = fs
      .readFileSync(ledger(ws), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LedgerEntry);
    expect(entries.filter((e) => e.labels.pr === "octo/app#1")).toHaveLength(modelWork(e2e).length);
    expect(entries.every((e) => e.labels.pr === "octo/app#1" && e.labels.repo === "octo/app")).toBe(true);
  });

  it("the PR's daily cap: the watcher hands the PR to a person before any model call, names spent and cap, and nothing is pushed", async () => {
    const { f, ws, client } = await setup(e2e, forges);
    seedLedger(ws, [
      { pr: "octo/app#1", usd: 3 },
      { pr: "octo/app#1", usd: 2.25 },
    ]);
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED));
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;

    const day = today();
    const once = await ottoPr(client, "watch once");
    expect(once).toContain(`| ${KEY} |`);
    expect(modelWork(e2e)).toEqual([]);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    const doc = docOf(ws);
    expect(runDays(day)).toContain(doc.data.cap_hold);
    expect(doc.data.fix_attempts).toBe(0);
    expect(doc.data.status).toBe("failed");
    expect(doc.log.join("\n")).toContain(
      "fix held at the daily cap: The PR watcher spent $5.25 of its $5.00 daily cap (limits.pr_usd_per_day) on octo/app#1 today (UTC)",
    );
    const hooks = () => f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("daily cap"));
    expect(hooks()).toHaveLength(1);
    expect(JSON.stringify(hooks()[0]?.body)).toContain("spent $5.25 of its $5.00 daily cap");
    expect(JSON.stringify(hooks()[0]?.body)).toMatch(/until \d{4}-\d{2}-\d{2}T00:00:00Z, or raise limits.pr_usd_per_day/);

    // The next cycle tries again (the cap still holds): no model call, no second notification.
    await ottoPr(client, "watch once");
    expect(modelWork(e2e)).toEqual([]);
    expect(hooks()).toHaveLength(1);
    expect(await ottoPr(client, `status ${KEY}`)).toContain("Held at a daily cap today (UTC)");
    expect(await ottoPr(client, "watch status")).toContain(`| ${KEY} | failed (held: daily cap) |`);

    // The cap raised: the next cycle fixes the PR, and the hold is over.
    ws.writeOttoConfig(f.ottoConfig({ models: { primary: "mock/m1" }, limits: { pr_usd_per_day: 50 } }), "user");
    const resumed = await ottoPr(client, "watch once");
    expect(modelWork(e2e).filter(isFix).length).toBeGreaterThan(0);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(docOf(ws).data.cap_hold).toBeUndefined();
    // The cycle's table has the PR's spend in its row and the total.
    const row = resumed.split("\n").find((l) => l.startsWith(`| ${KEY} |`));
    const spent = docOf(ws).data.spend?.total as Usage;
    expect(row).toContain(formatUsage(spent));
    expect(resumed).toContain(`| total | | | | ${formatUsage(spent)} |`);
  });

  it("a fix in flight stops at what is left of the PR's cap: no attempt counted, the PR held and handed to a person", async () => {
    const { f, ws, client } = await setup(e2e, forges);
    seedLedger(ws, [{ pr: "octo/app#1", usd: 4 }]);
    // $3 a call: the first call of the analysis takes the PR past its $5 cap.
    e2e.model.usage = () => ({ prompt_tokens: 1_000_000, completion_tokens: 0, total_tokens: 1_000_000 });
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED));
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;

    const day = today();
    await ottoPr(client, "watch once");
    expect(modelWork(e2e).filter(isAnalysis).length).toBeGreaterThan(0);
    expect(modelWork(e2e).filter(isFix)).toEqual([]);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    const doc = docOf(ws);
    expect(doc.data.fix_attempts).toBe(0);
    expect(doc.data.status).toBe("failed");
    expect(runDays(day)).toContain(doc.data.cap_hold);
    expect(doc.sections.find((s) => s.title === "Fix History")?.body).toMatch(
      /### Budget — [\s\S]*the fix stopped at its budget \(spent \$\d+\.\d\d of \$1\.00\); no attempt counted/,
    );
    expect(doc.data.spend?.total.usd).toBeGreaterThanOrEqual(3);
    const hooks = f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("daily cap"));
    expect(hooks).toHaveLength(1);
    expect(JSON.stringify(hooks[0]?.body)).toMatch(/spent \$\d+\.\d\d of its \$5\.00 daily cap \(limits.pr_usd_per_day\)/);
    expect(e2e.model.inFlight()).toEqual([]);
  });

  it("the watcher's daily cap stops model work on every PR for the day, says so once, and watch status shows it", async () => {
    const { f, ws, client } = await setup(e2e, forges, [1, 2]);
    seedLedger(ws, [
      { pr: "octo/other#9", usd: 12 },
      { pr: "octo/other#10", usd: 8.5 },
    ]);
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED));

    const day = today();
    await ottoPr(client, "watch once");
    await ottoPr(client, "watch once");
    expect(modelWork(e2e)).toEqual([]);
    for (const key of [KEY, "github-octo-app-2"]) {
      expect(runDays(day)).toContain(docOf(ws, key).data.cap_hold);
      expect(docOf(ws, key).log.join("\n")).toContain(
        "The PR watcher spent $20.50 of its $20.00 daily cap (limits.watcher_usd_per_day) on all PRs today (UTC)",
      );
    }
    const hooks = f.hooks.calls.filter((c) => JSON.stringify(c.body).includes("daily cap"));
    expect(hooks).toHaveLength(1);
    expect(JSON.stringify(hooks[0]?.body)).toContain("limits.watcher_usd_per_day");
    const status = await ottoPr(client, "watch status");
    expect(status).toContain("Spent today (UTC): ");
    expect(status).toMatch(
      /Daily cap reached \(\$20\.50 of \$20\.00\): no fix or answer starts on any PR until \d{4}-\d{2}-\d{2}T00:00:00Z/,
    );
  });
});
