/**
 * Benchmarks of PR tracking, as a markdown section for docs/benchmarks.md. `benchPr()` is what
 * bench/run.ts calls; run alone with `node --import tsx bench/pr.ts [--write]` (prints the
 * section; --write puts it into docs/benchmarks.md).
 *
 * 1. Requests per idle poll per tracked PR, and how many GitHub answered 304 (free against the
 *    rate limit): GitHub with ETags; Azure DevOps, which has no conditional requests here.
 * 2. Cycle time for 50 tracked PRs against the fake servers: the first (cold) cycle and an idle
 *    one, at the watcher's production concurrency and retry settings.
 */
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveConfig } from "../src/config/index.ts";
import type { PrContext } from "../src/pr/context.ts";
import { addPr, createPrStore, createRegistry, runCycle, type BackendDeps } from "../src/pr/index.ts";
import { trimLog } from "../src/pr/fix/trim-log.ts";
import { FAKE_ADO_PAT, FAKE_GITHUB_TOKEN, startFakeAdo, startFakeGithub, type RecordedCall } from "../test/support/index.ts";

const PRS = Number(process.env.OTTO_BENCH_PRS ?? 50);
const IDLE_CYCLES = 3;
/** The watcher's own setting (src/pr/watch/controller.ts). */
const CONCURRENCY = 4;

interface Measure {
  coldMs: number;
  idleMs: number[];
  perPollRequests: number;
  perPoll304: number;
}

async function measure(provider: "github" | "ado", log: (line: string) => void): Promise<Measure> {
  const gh = await startFakeGithub();
  const ado = await startFakeAdo();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-bench-pr-"));
  try {
    const { config, secrets } = resolveConfig({
      layers: [{ scope: "user", file: "bench", value: { pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN }, ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT, organization: "contoso", project: "payments" } } } } }],
      env: { HOME: dir },
    });
    const deps: BackendDeps = {
      config,
      env: {},
      fetch: globalThis.fetch,
      exec: async () => ({ exitCode: undefined, stdout: "" }),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      retryBaseMs: 1000,
      log: () => undefined,
    };
    const ctx: PrContext = {
      loaded: { config, sources: {}, secrets, files: { user: "", repo: undefined }, found: { user: false, repo: false } },
      store: createPrStore(path.join(dir, "prs")),
      registry: createRegistry(deps),
      notify: async () => ({ delivered: [], failed: [] }),
      dataDir: dir,
    };
    for (let n = 1; n <= PRS; n++) {
      // CI still running, one reviewer comment each: a typical PR between pushes.
      if (provider === "github") {
        const pr = gh.state.addPr({ number: n });
        gh.state.setChecks(pr, [{ name: "build" }, { name: "test", status: "in_progress" }]);
        gh.state.addComment(pr, "Looks reasonable.");
        await addPr(ctx, { text: `https://github.com/octo/app/pull/${n}`, now: new Date() });
      } else {
        const pr = ado.state.addPr({ id: n });
        ado.state.setChecks(pr, [{ name: "ci" }, { name: "test", status: "inProgress" }]);
        ado.state.addThread(pr, { content: "Looks reasonable." });
        await addPr(ctx, { text: String(n), provider: "ado", now: new Date() });
      }
    }
    const calls: RecordedCall[] = provider === "github" ? gh.calls : ado.calls;
    const cycle = async () => {
      const start = performance.now();
      const report = await runCycle({ ...ctx, now: () => new Date(), log: () => undefined, intervalMs: 120_000, concurrency: CONCURRENCY, secrets });
      if (report.results.some((r) => r.outcome === "error")) throw new Error(`bench cycle had errors: ${JSON.stringify(report.results.filter((r) => r.error))}`);
      return Math.round(performance.now() - start);
    };
    const coldMs = await cycle();
    log(`pr: ${provider} cold cycle ${coldMs} ms`);
    const idleMs: number[] = [];
    const from = calls.length;
    for (let i = 0; i < IDLE_CYCLES; i++) idleMs.push(await cycle());
    const idle = calls.slice(from);
    log(`pr: ${provider} idle cycles ${idleMs.join(", ")} ms, ${idle.length} requests`);
    return {
      coldMs,
      idleMs,
      perPollRequests: idle.length / (PRS * IDLE_CYCLES),
      perPoll304: idle.filter((c) => c.status === 304).length / (PRS * IDLE_CYCLES),
    };
  } finally {
    await gh.close();
    await ado.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A synthetic Actions job log: timestamped, coloured, tens of thousands of passing-test lines,
 * with three real failures buried in it (what phase 1 of the fix flow must not lose).
 */
function syntheticLog(lines: number): { text: string; roots: string[] } {
  const roots = ["src/auth/token.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.", "FAIL test/auth.test.ts > refresh > rejects an expired token", "AssertionError: expected 401 to be 200"];
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const stamp = new Date(Date.UTC(2026, 1, 6, 10, 0, 0, i)).toISOString();
    if (i === Math.floor(lines * 0.3)) out.push(`${stamp} ${roots[0]}`);
    else if (i === Math.floor(lines * 0.6)) out.push(`${stamp} \u001b[31m${roots[1]}\u001b[0m`);
    else if (i === Math.floor(lines * 0.6) + 3) out.push(`${stamp} ${roots[2]}`);
    else out.push(`${stamp} \u001b[32m✓\u001b[0m test/unit/module-${i % 500}.test.ts > case ${i} (${i % 17} ms)`);
  }
  out.push(`${new Date(Date.UTC(2026, 1, 6, 11)).toISOString()} ##[error]Process completed with exit code 1.`);
  return { text: out.join("\n"), roots };
}

interface TrimMeasure {
  rawBytes: number;
  trimmedBytes: number;
  ms: number;
  rootsKept: number;
  roots: number;
}

function measureTrim(lines: number): TrimMeasure {
  const { text, roots } = syntheticLog(lines);
  const started = performance.now();
  const trimmed = trimLog(text);
  const ms = performance.now() - started;
  return { rawBytes: Buffer.byteLength(text), trimmedBytes: Buffer.byteLength(trimmed), ms, rootsKept: roots.filter((r) => trimmed.includes(r)).length, roots: roots.length };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The "PR tracking" section of docs/benchmarks.md. */
export async function benchPr(log: (line: string) => void = () => undefined): Promise<string> {
  const github = await measure("github", log);
  const ado = await measure("ado", log);
  const trims = [5_000, 50_000, 200_000].map((lines) => ({ lines, ...measureTrim(lines) }));
  return [
    "## PR tracking (`otto_pr_watch`)",
    "",
    `${PRS} tracked PRs per provider against the fake GitHub and Azure DevOps servers (127.0.0.1), each with CI running and one reviewer comment; ${CONCURRENCY} PRs polled at once, production retry settings, no injected faults. An idle poll is one where nothing changed (median of ${IDLE_CYCLES} cycles).`,
    "",
    "| measure | GitHub | Azure DevOps |",
    "|---|---|---|",
    `| requests per idle poll per PR | ${github.perPollRequests.toFixed(1)} | ${ado.perPollRequests.toFixed(1)} |`,
    `| of which answered 304 (free against the rate limit) | ${github.perPoll304.toFixed(1)} | n/a (no conditional requests) |`,
    `| first cycle, ${PRS} PRs (every answer a 200) | ${github.coldMs} ms | ${ado.coldMs} ms |`,
    `| idle cycle, ${PRS} PRs | ${median(github.idleMs)} ms | ${median(ado.idleMs)} ms |`,
    "",
    "GitHub: an idle poll is the PR, its check runs, its combined status, its conversation comments and its review comments, each sent with the ETag of the last answer; GraphQL (review threads) is asked only when the review comments changed. Azure DevOps: the PR, its policy evaluations and its threads.",
    "",
    "### Fix flow: CI logs cut down in code before the analysis session",
    "",
    "A synthetic GitHub Actions job log (timestamps, ANSI colours, one passing test per line) with three root errors buried in it, through `trimLog` (src/pr/fix/trim-log.ts), measured in the same run:",
    "",
    "| log lines | raw | handed to the session | kept | root errors kept | time |",
    "|---|---|---|---|---|---|",
    ...trims.map((t) => `| ${t.lines.toLocaleString("en")} | ${kb(t.rawBytes)} | ${kb(t.trimmedBytes)} | ${((t.trimmedBytes / t.rawBytes) * 100).toFixed(2)} % | ${t.rootsKept}/${t.roots} | ${t.ms.toFixed(0)} ms |`),
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection("## PR tracking", section);
}

runStandalone(import.meta.url, benchPr, writeSection);
