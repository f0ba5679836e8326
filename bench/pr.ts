/**
 * Benchmarks of PR tracking, as a markdown section for docs/benchmarks.md. `benchPr()` is what
 * bench/run.ts calls; run alone with `node --import tsx bench/pr.ts [--write]` (prints the
 * section; --write puts it into docs/benchmarks.md).
 *
 * 1. Requests per idle watcher cycle over 50 and 500 tracked PRs on each forge (how many GitHub
 *    answered 304, free against the rate limit), what one changed PR and one PR with CI running
 *    add, and the cycles' wall time, at the watcher's production concurrency and retry settings.
 * 2. How much of a CI log the fix flow hands to its session.
 */
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveConfig } from "../src/config/index.ts";
import type { PrContext } from "../src/pr/context/context.ts";
import { addPr, createPrStore, createRegistry, runCycle, type BackendDeps } from "../src/pr/index.ts";
import { documentKey } from "../src/pr/store/store.ts";
import { trimLog } from "../src/pr/fix/trim-log.ts";
import { FAKE_ADO_PAT, FAKE_GITHUB_TOKEN, startFakeAdo, startFakeGithub, type RecordedCall } from "../test/support/index.ts";

/** Tracked PRs per forge: the issue's two scales. OTTO_BENCH_PRS=50 runs only the first. */
const SCALES = process.env.OTTO_BENCH_PRS ? [Number(process.env.OTTO_BENCH_PRS)] : [50, 500];
const IDLE_CYCLES = 3;
/** The watcher's own setting (src/pr/watch/controller.ts). */
const CONCURRENCY = 4;

interface Cycle {
  ms: number;
  requests: number;
  /** GitHub: answers 304, free against the primary rate limit. */
  notModified: number;
}

interface Measure {
  prs: number;
  cold: Cycle;
  idle: Cycle[];
  /** The cycle after one PR got a new commit with CI running. */
  changed: Cycle;
  /** The cycle after that: the PR's CI still runs. */
  running: Cycle;
}

async function measure(provider: "github" | "ado", prs: number, log: (line: string) => void): Promise<Measure> {
  const gh = await startFakeGithub();
  const ado = await startFakeAdo();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-bench-pr-"));
  try {
    const { config, secrets } = resolveConfig({
      layers: [
        {
          scope: "user",
          file: "bench",
          value: {
            pr: {
              providers: {
                github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN },
                ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT, organization: "contoso", project: "payments" },
              },
            },
          },
        },
      ],
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
    // Finished CI on every PR of one repository, its success comment posted: a watcher's usual day between pushes.
    for (let n = 1; n <= prs; n++) {
      let sha: string;
      if (provider === "github") {
        const pr = gh.state.addPr({ number: n });
        gh.state.setChecks(pr, [{ name: "build" }, { name: "test" }]);
        sha = pr.head.sha;
        await addPr(ctx, { text: `https://github.com/octo/app/pull/${n}`, now: new Date() });
      } else {
        const pr = ado.state.addPr({ id: n });
        ado.state.setChecks(pr, [{ name: "ci" }, { name: "test" }]);
        sha = pr.sourceCommit;
        await addPr(ctx, { text: String(n), provider: "ado", now: new Date() });
      }
      const key = documentKey({ provider, repo: provider === "github" ? "octo/app" : "contoso/payments", number: n });
      await ctx.store.update(key, (d) => ({ ...d, data: { ...d.data, green_sha: sha } }));
    }
    const calls: RecordedCall[] = provider === "github" ? gh.calls : ado.calls;
    const cycle = async (): Promise<Cycle> => {
      const from = calls.length;
      const start = performance.now();
      const report = await runCycle({
        ...ctx,
        now: () => new Date(),
        log: () => undefined,
        intervalMs: 120_000,
        fullPollMs: 60 * 60_000,
        concurrency: CONCURRENCY,
        secrets,
      });
      if (report.results.some((r) => r.outcome === "error"))
        throw new Error(`bench cycle had errors: ${JSON.stringify(report.results.filter((r) => r.error))}`);
      const made = calls.slice(from);
      return { ms: Math.round(performance.now() - start), requests: made.length, notModified: made.filter((c) => c.status === 304).length };
    };
    const cold = await cycle();
    const idle: Cycle[] = [];
    for (let i = 0; i < IDLE_CYCLES; i++) idle.push(await cycle());
    log(`pr: ${provider} ${prs} PRs: cold ${cold.ms} ms; idle ${idle.map((c) => `${c.requests} req ${c.ms} ms`).join(", ")}`);
    // One PR gets a new commit whose CI runs.
    if (provider === "github") {
      const pr = gh.state.prs[0]!;
      gh.state.pushCommit(pr);
      gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    } else {
      const pr = ado.state.prs[0]!;
      ado.state.pushCommit(pr);
      ado.state.setChecks(pr, [{ name: "ci", status: "inProgress" }]);
    }
    const changed = await cycle();
    const running = await cycle();
    return { prs, cold, idle, changed, running };
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
  const roots = [
    "src/auth/token.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    "FAIL test/auth.test.ts > refresh > rejects an expired token",
    "AssertionError: expected 401 to be 200",
  ];
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
  return {
    rawBytes: Buffer.byteLength(text),
    trimmedBytes: Buffer.byteLength(trimmed),
    ms,
    rootsKept: roots.filter((r) => trimmed.includes(r)).length,
    roots: roots.length,
  };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;

/** The "PR tracking" section of docs/benchmarks.md. */
export async function benchPr(log: (line: string) => void = () => undefined): Promise<string> {
  const runs: Array<{ forge: string; m: Measure }> = [];
  for (const prs of SCALES) runs.push({ forge: "GitHub", m: await measure("github", prs, log) });
  for (const prs of SCALES) runs.push({ forge: "Azure DevOps", m: await measure("ado", prs, log) });
  const trims = [5_000, 50_000, 200_000].map((lines) => ({ lines, ...measureTrim(lines) }));
  const idle = (m: Measure) => [...m.idle].sort((a, b) => a.requests - b.requests || a.ms - b.ms)[Math.floor(m.idle.length / 2)]!;
  const cell = (f: (m: Measure, forge: string) => string) => runs.map((r) => f(r.m, r.forge)).join(" | ");
  return [
    "## PR tracking (`otto_pr_watch`)",
    "",
    `Tracked PRs of one repository per forge against the fake GitHub and Azure DevOps servers (127.0.0.1), CI finished on each; ${CONCURRENCY} PRs polled at once, production retry settings, no injected faults. An idle cycle is one in which nothing changed (median of ${IDLE_CYCLES}); then one PR gets a new commit whose CI runs (the changed cycle), and the next cycle finds its CI still running. Before: every idle poll read each PR in full (GitHub 5 requests per PR, all 304; Azure DevOps 3), 250 and 150 requests per idle cycle of 50 PRs, 766 ms and 226 ms.`,
    "",
    `| measure | ${runs.map((r) => `${r.forge}, ${r.m.prs} PRs`).join(" | ")} | target |`,
    `|---|${runs.map(() => "---").join("|")}|---|`,
    `| requests per idle cycle | ${cell((m) => String(idle(m).requests))} | ≤ 5 for 50 GitHub PRs (before: 250 GitHub, 150 Azure DevOps) |`,
    `| of which billed against the primary rate limit (not 304) | ${cell((m, forge) => (forge === "GitHub" ? String(idle(m).requests - idle(m).notModified) : "n/a"))} | ≤ 1 |`,
    `| requests a changed PR adds | ${cell((m) => String(m.changed.requests - idle(m).requests))} | that PR's own reads |`,
    `| requests a PR whose CI runs adds | ${cell((m) => String(m.running.requests - idle(m).requests))} | |`,
    `| idle cycle wall time | ${cell((m) => `${idle(m).ms} ms`)} | (before: 766 ms GitHub, 226 ms Azure DevOps, 50 PRs) |`,
    `| first cycle wall time (every PR read in full) | ${cell((m) => `${m.cold.ms} ms`)} | |`,
    "",
    "GitHub: the repository's open PRs are listed 100 a page with the ETag of each page's last answer (304 when none changed; pages stop once every tracked PR was seen); a changed PR adds its own reads: the PR, its check runs, its combined status, its conversation and review comments (each conditional), and GraphQL review threads only when the review comments changed. While its CI runs, a PR adds its check runs and status. Azure DevOps: one list of the active PRs per repository; a changed PR adds the PR, its policy evaluations and its threads; while its CI runs, its evaluations and threads (the list does not show comments). Every PR is still read in full once per `pr.full_poll_interval` (10 min by default; the bench sets an hour so the idle cycles stay idle) for what a list does not show.",
    "",
    "### Fix flow: CI logs cut down in code before the analysis session",
    "",
    "A synthetic GitHub Actions job log (timestamps, ANSI colours, one passing test per line) with three root errors buried in it, through `trimLog` (src/pr/fix/trim-log.ts), measured in the same run:",
    "",
    "| log lines | raw | handed to the session | kept | root errors kept | time |",
    "|---|---|---|---|---|---|",
    ...trims.map(
      (t) =>
        `| ${t.lines.toLocaleString("en")} | ${kb(t.rawBytes)} | ${kb(t.trimmedBytes)} | ${((t.trimmedBytes / t.rawBytes) * 100).toFixed(2)} % | ${t.rootsKept}/${t.roots} | ${t.ms.toFixed(0)} ms |`,
    ),
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection("## PR tracking", section);
}

runStandalone(import.meta.url, benchPr, writeSection);
