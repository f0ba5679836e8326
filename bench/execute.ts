/**
 * Benchmarks of the execution engine (/otto-spec execute), as a markdown section for
 * docs/benchmarks.md. `benchExecute()` is what bench/run.ts calls; run alone with
 * `node --import tsx bench/execute.ts [--write]` (prints the section; --write puts it into
 * docs/benchmarks.md).
 *
 * 1. Parallelism: a phase of 8 tasks at spec.max_parallel_tasks 4, the scripted model answering
 *    every request after a fixed delay, against the ideal of 2 rounds of one task's call chain
 *    (briefing, executor write, executor summary). The ideal is given two ways: computed (2 rounds
 *    × calls per task × the delay: what a zero-cost otto and OpenCode would take) and measured
 *    (2 tasks one after the other through otto and OpenCode: literally 2 rounds of the per-task call
 *    chain). Target ≤ 1.15 against the measured one; the computed one shows what the chain costs
 *    outside the model's answers. Medians of the runs. Measured twice: with OpenCode's snapshots
 *    of the work tree (its default) and with `"snapshot": false`, which shows their share.
 * 2. Overhead per child session: otto's session layer (runChild with dialog: create, prompt with
 *    model/agent verification and event handling, messages, delete) next to the same SDK calls
 *    made directly, against the same `opencode serve`.
 * 3. tasks.md lock waits: 16 writers × 50 status updates, p50/p99, in one process (16 stores) and
 *    in 16 processes.
 */
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EventBus, silentLogger } from "../src/core/index.ts";
import { TaskStore } from "../src/execute/index.ts";
import { SessionRunner } from "../src/session/index.ts";
import { executeTool } from "../test/e2e/execute/drive.ts";
import { defaultStep, kindOf, writes } from "../test/e2e/execute/exec-model.ts";
import { specFiles, taskIdOf, tasksMd } from "../test/e2e/execute/kinds.ts";
import { execa } from "execa";
import { crewLockWaits, prStoreLockWaits } from "./store-locks.ts";
import { bootstrap, quantile } from "./stats.ts";
import {
  REPO_ROOT,
  createWorkspace,
  delay,
  startModelServer,
  startServe,
  text,
  toolCall,
  type ModelServer,
  type RecordedRequest,
  type Serve,
} from "../test/support/index.ts";

// Real models take 5-60 s a turn; 2 s keeps the run short while OpenCode's own per-turn cost
// (snapshots, message writes) stays a minority of a turn, as it is in real use.
const DELAY_MS = Number(process.env.OTTO_BENCH_DELAY_MS ?? 2_000);
const SESSIONS = Number(process.env.OTTO_BENCH_SESSIONS ?? 20);
const PHASE_RUNS = Number(process.env.OTTO_BENCH_PHASE_RUNS ?? 3);

const median = (xs: readonly number[]) => quantile(xs, 0.5);

/** Runs one spec through the typed tool and returns the requests of its tasks (briefing and executor). */
async function runSpec(model: ModelServer, serve: Serve, project: string, slug: string): Promise<RecordedRequest[]> {
  const mark = model.requests.length;
  model.script(
    { label: "call", match: { tool: "otto_spec_execute", lastRole: "user" }, reply: toolCall("otto_spec_execute", { spec: slug }) },
    { label: "echo", match: { tool: "otto_spec_execute", lastRole: "tool" }, reply: text("done") },
  );
  await executeTool(serve.client, `Execute ${slug}.`);
  return model.requests.slice(mark).filter((r) => kindOf(r) === "execute-task" || kindOf(r) === "task-briefing");
}

/**
 * What a run's time is: from the start of its first task request (a briefing) to the end of its
 * last one (an executor's summary). Otto's setup before and the commit after are outside it.
 */
const span = (requests: readonly RecordedRequest[]): number =>
  Math.max(...requests.map((r) => r.endedAt ?? r.startedAt)) - Math.min(...requests.map((r) => r.startedAt));

/**
 * OpenCode's own step time: from the end of an executor's tool-call answer to its follow-up
 * request (OpenCode runs the write tool, snapshots, starts the next step; no otto code runs).
 */
function stepGaps(requests: readonly RecordedRequest[]): number[] {
  const first = new Map<string, RecordedRequest>();
  const gaps: number[] = [];
  for (const r of requests.filter((q) => kindOf(q) === "execute-task")) {
    const task = taskIdOf(r.lastUser) ?? "";
    const start = first.get(task);
    if (r.lastRole === "user") first.set(task, r);
    else if (start?.endedAt !== undefined) gaps.push(r.startedAt - start.endedAt);
  }
  return gaps;
}

/**
 * Otto's hand-over inside a task's chain: from the end of the briefing's answer to the executor's
 * first request (OpenCode finishes the briefing turn; otto reads the brief and prompts the
 * executor's session, opened beside the briefing with the tree's first read; OpenCode builds the
 * request).
 */
function handoverGaps(requests: readonly RecordedRequest[]): number[] {
  const briefed = new Map<string, RecordedRequest>();
  const gaps: number[] = [];
  for (const r of requests) {
    const task = taskIdOf(r.lastUser) ?? "";
    if (kindOf(r) === "task-briefing") briefed.set(task, r);
    else if (kindOf(r) === "execute-task" && r.lastRole === "user" && briefed.get(task)?.endedAt !== undefined)
      gaps.push(r.startedAt - (briefed.get(task)?.endedAt ?? 0));
  }
  return gaps;
}

/**
 * Between two tasks run one after the other: from the end of the first task's last answer to the
 * second's briefing request (otto closes the first task: snapshot, history, tasks.md; then opens
 * the next session).
 */
function betweenGaps(requests: readonly RecordedRequest[]): number[] {
  const sorted = [...requests].sort((a, b) => a.startedAt - b.startedAt);
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (prev && cur && kindOf(cur) === "task-briefing" && prev.endedAt !== undefined) gaps.push(cur.startedAt - prev.endedAt);
  }
  return gaps;
}

/**
 * The phase against two ideals. Computed: 2 rounds × the model calls of one task × the model's
 * delay, the time with no cost at all besides the model. Measured: two tasks one after the other
 * (max_parallel_tasks 1) through otto and OpenCode, which includes each session's own cost (setup,
 * tool runs, teardown) and so hides it from the ratio.
 */
async function parallelism(snapshots: boolean): Promise<{
  chainMs: number[];
  phaseMs: number[];
  callsPerTask: number;
  idealMs: number;
  ratio: number;
  ratioMeasured: number;
  gapAlone: number;
  gapPhase: number;
  handAlone: number;
  handPhase: number;
  between: number;
}> {
  const model = await startModelServer();
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i): [string, string, number, string[], string] => [
      `task-${String(i + 1).padStart(3, "0")}`,
      "pending",
      1,
      [],
      `Greeting ${i + 1}`,
    ]);
  let files: Record<string, string> = {};
  for (let i = 0; i < PHASE_RUNS; i++)
    files = { ...files, ...specFiles(tasksMd(rows(2)), `pair-${i}`), ...specFiles(tasksMd(rows(8)), `eight-${i}`) };
  const spec = (parallel: number) => ({
    models: { primary: "mock/m1", secondary: "mock/m2" },
    spec: { max_parallel_tasks: parallel, review_gate: false, external_assumptions: false, domain_hardening: false, docs_alignment: false },
  });
  const ws = await createWorkspace({ model, files, ottoConfig: spec(1) });
  // OpenCode's own snapshots of the work tree (its undo), on unless a user turns them off.
  if (!snapshots) ws.updateConfig({ snapshot: false });
  const serve = await startServe(ws);
  try {
    // Each spec's tasks write files of their own: a task that changed nothing would not complete
    // (docs/execute.md, evidence) and would be retried, which is not what is measured here.
    const step = (r: RecordedRequest) => {
      const kind = kindOf(r) ?? "execute-task";
      if (kind !== "execute-task") return defaultStep(ws.project, kind, r);
      const file = `src/${/specs\/([\w.-]+)/.exec(r.lastUser)?.[1] ?? "spec"}/${taskIdOf(r.lastUser) ?? "task"}.txt`;
      return writes(ws.project, r, { [file]: "done\n" }, `Created ${file}.`);
    };
    model.script({ label: "exec", times: Infinity, match: (r) => kindOf(r) !== undefined, reply: (r) => delay(DELAY_MS, step(r)) });
    const chainMs: number[] = [];
    const phaseMs: number[] = [];
    const calls: number[] = [];
    const gaps = {
      alone: [] as number[],
      phase: [] as number[],
      handAlone: [] as number[],
      handPhase: [] as number[],
      between: [] as number[],
    };
    // Interleaved, so background load hits both sides alike; otto reads its config on every command.
    for (let i = 0; i < PHASE_RUNS; i++) {
      ws.writeOttoConfig(spec(1));
      const pair = await runSpec(model, serve, ws.project, `pair-${i}`);
      chainMs.push(span(pair));
      calls.push(pair.length / 2);
      gaps.alone.push(...stepGaps(pair));
      gaps.handAlone.push(...handoverGaps(pair));
      gaps.between.push(...betweenGaps(pair));
      ws.writeOttoConfig(spec(4));
      const eight = await runSpec(model, serve, ws.project, `eight-${i}`);
      phaseMs.push(span(eight));
      gaps.phase.push(...stepGaps(eight));
      gaps.handPhase.push(...handoverGaps(eight));
    }
    const callsPerTask = median(calls);
    const idealMs = 2 * callsPerTask * DELAY_MS;
    return {
      chainMs,
      phaseMs,
      callsPerTask,
      idealMs,
      ratio: median(phaseMs) / idealMs,
      ratioMeasured: median(phaseMs) / median(chainMs),
      gapAlone: median(gaps.alone),
      gapPhase: median(gaps.phase),
      handAlone: median(gaps.handAlone),
      handPhase: median(gaps.handPhase),
      between: median(gaps.between),
    };
  } finally {
    await serve.close();
    await ws.cleanup();
    await model.close();
  }
}

/**
 * The median of paired differences with a 95 % bootstrap interval (2,000 resamples of the pairs):
 * a single difference of two medians can come out negative on a noisy machine, an interval says
 * how much the figure can be trusted.
 */
function medianDifference(a: readonly number[], b: readonly number[]): { median: number; low: number; high: number } {
  const diffs = a.map((x, i) => x - (b[i] ?? 0));
  const { value, low, high } = bootstrap(diffs.length, (idx) => median(idx.map((i) => diffs[i] ?? 0)));
  return { median: value, low, high };
}

async function sessionOverhead(): Promise<{ raw: number; otto: number; overhead: { median: number; low: number; high: number } }> {
  const model = await startModelServer();
  const ws = await createWorkspace({ model });
  const serve = await startServe(ws);
  const bus = new EventBus();
  const abort = new AbortController();
  try {
    model.script({ times: Infinity, reply: text("ok") });
    const { stream } = await serve.client.event.subscribe({ signal: abort.signal });
    void (async () => {
      for await (const event of stream) bus.emit(event);
    })().catch(() => undefined);
    const client = serve.client;
    const runner = new SessionRunner({ client, events: bus, log: silentLogger });
    const options = {
      directory: ws.project,
      agent: "otto-executor",
      model: { providerID: "mock", modelID: "m1" },
      title: "bench",
      timeoutMs: 60_000,
    };
    const raw: number[] = [];
    const otto: number[] = [];
    for (let i = 0; i < SESSIONS + 2; i++) {
      const direct = async (): Promise<number> => {
        const t = Date.now();
        const s = (await client.session.create({ body: { title: "bench" }, query: { directory: ws.project }, throwOnError: true })).data;
        await client.session.prompt({
          path: { id: s.id },
          body: { agent: "otto-executor", model: options.model, parts: [{ type: "text", text: "ping" }] },
          throwOnError: true,
        });
        await client.session.messages({ path: { id: s.id }, throwOnError: true });
        await client.session.delete({ path: { id: s.id }, throwOnError: true });
        return Date.now() - t;
      };
      const viaOtto = async (): Promise<number> => {
        const t = Date.now();
        await runner.runChild(options, "ping", { withDialog: true });
        return Date.now() - t;
      };
      // Alternate which goes first, so drift in the server's state hits both sides alike.
      let rawMs: number;
      let ottoMs: number;
      if (i % 2) {
        rawMs = await direct();
        ottoMs = await viaOtto();
      } else {
        ottoMs = await viaOtto();
        rawMs = await direct();
      }
      // The first rounds warm OpenCode's caches (agents, provider): not counted.
      if (i >= 2) {
        raw.push(rawMs);
        otto.push(ottoMs);
      }
    }
    return { raw: median(raw), otto: median(otto), overhead: medianDifference(otto, raw) };
  } finally {
    abort.abort();
    await serve.close();
    await ws.cleanup();
    await model.close();
  }
}

/** A tasks.md of 16 pending tasks in a temp dir for `bench`, removed afterwards. */
async function withTasksFile<T>(bench: (file: string, ids: string[]) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-bench-lock-"));
  try {
    const rows = Array.from({ length: 16 }, (_, i): [string, string, number, string[], string] => [`task-${i}`, "pending", 1, [], `T${i}`]);
    const file = path.join(dir, "tasks.md");
    fs.writeFileSync(file, tasksMd(rows));
    return await bench(
      file,
      rows.map(([id]) => id),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const waitStats = (waits: readonly number[]) => ({ p50: quantile(waits, 0.5), p99: quantile(waits, 0.99), max: Math.max(...waits) });

/** 16 writers × 50 status updates in this process, one TaskStore each. */
export function lockWaitsForBench(): Promise<{ p50: number; p99: number; max: number; totalMs: number }> {
  return withTasksFile(async (file, ids) => {
    const waits: number[] = [];
    const stores = await Promise.all(ids.map(() => TaskStore.open(file, "bench", { onLockWait: (ms) => waits.push(ms) })));
    const started = Date.now();
    await Promise.all(
      stores.map(async (store, w) => {
        for (let k = 0; k < 50; k++) await store.set(ids[w] ?? "", k % 2 ? "running" : "pending");
      }),
    );
    return { ...waitStats(waits), totalMs: Date.now() - started };
  });
}

/**
 * The same 16 writers × 50 updates, each writer in a process of its own (the cross-process lock
 * alone: no in-process queue helps them). All start at the same instant, after every process has
 * loaded.
 */
export function crossProcessLockWaits(): Promise<{ p50: number; p99: number; max: number; lost: number }> {
  return withTasksFile(async (file, ids) => {
    const start = Date.now() + 8_000;
    const writer = path.join(REPO_ROOT, "bench", "lock-writer.ts");
    const outputs = await Promise.all(
      ids.map((id) =>
        execa(process.execPath, ["--import", "tsx", writer, file, id, "50", String(start)], { cwd: REPO_ROOT }).then(
          (r) => JSON.parse(r.stdout) as number[],
        ),
      ),
    );
    // 50 updates end on `running` (odd k last): a lost update would leave a task `pending`.
    const lost = (await TaskStore.open(file, "bench")).list.tasks.filter((t) => t.status !== "running").length;
    return { ...waitStats(outputs.flat()), lost };
  });
}

/** The "Execution engine" section of docs/benchmarks.md. */
export async function benchExecute(log: (line: string) => void = () => undefined): Promise<string> {
  // The machine's load skews every timing here; the section says what it was.
  const load = os.loadavg()[0] ?? 0;
  log("execute: phase of 8 tasks at max_parallel_tasks 4 …");
  const p = await parallelism(true);
  log(
    `execute: measured ideal ${p.chainMs.join(", ")} ms, computed ideal ${p.idealMs} ms, phase ${p.phaseMs.join(", ")} ms, ratio ${p.ratio.toFixed(3)} (measured ${p.ratioMeasured.toFixed(3)})`,
  );
  log("execute: the same with OpenCode's snapshots off …");
  const q = await parallelism(false);
  log(
    `execute: snapshots off: measured ideal ${q.chainMs.join(", ")} ms, phase ${q.phaseMs.join(", ")} ms, ratio ${q.ratio.toFixed(3)} (measured ${q.ratioMeasured.toFixed(3)})`,
  );
  const outside = (r: typeof p) => Math.round(median(r.chainMs) / 2 - r.callsPerTask * DELAY_MS);
  log("execute: child session overhead …");
  const s = await sessionOverhead();
  log(`execute: raw ${s.raw} ms, otto ${s.otto} ms`);
  log("execute: tasks.md lock waits …");
  const l = await lockWaitsForBench();
  const x = await crossProcessLockWaits();
  log("execute: PR store and crew state lock waits …");
  const prLocks = await prStoreLockWaits();
  const crewLocks = await crewLockWaits();
  return [
    "## Execution engine (`/otto-spec execute`)",
    "",
    `Scripted model answering every request after ${DELAY_MS} ms; one \`opencode serve\`; gates, docs alignment off for the timing. A run's time is the span of its task requests: from the start of the first (a briefing) to the end of the last (an executor's summary), so otto's setup before the tasks and the commit after them are not in it. Ratios are of the medians of ${PHASE_RUNS} runs. Load average (1 min) when the bench started: ${load.toFixed(1)} on ${os.availableParallelism()} cores.`,
    "",
    "| measure | value | target |",
    "|---|---|---|",
    `| computed ideal: 2 rounds × ${p.callsPerTask} model calls per task (brief, executor write, executor summary) × ${DELAY_MS} ms | ${p.idealMs} ms | |`,
    `| measured ideal: 2 tasks one after the other (\`max_parallel_tasks\` 1), through otto and OpenCode (${PHASE_RUNS} runs) | ${p.chainMs.join(" / ")} ms | |`,
    `| phase of 8 tasks, \`max_parallel_tasks\` 4 (${PHASE_RUNS} runs, interleaved) | ${p.phaseMs.join(" / ")} ms | |`,
    `| **phase / measured ideal** (median: the phase against 2 rounds of the per-task call chain; before: 1.276) | **${p.ratioMeasured.toFixed(3)}** | ≤ 1.15 |`,
    `| **phase / computed ideal** (median; also counts the chain's cost outside the model's answers; before: 1.563) | **${p.ratio.toFixed(3)}** (${(1 / p.ratio).toFixed(2)} of the ideal) | ≤ 1.149 (≥ 0.87 of the ideal) |`,
    `| time of one task's chain outside the model's answers (measured ideal / 2 − ${p.callsPerTask} × ${DELAY_MS} ms, median; before: 1352 ms) | ${outside(p)} ms | |`,
    `| OpenCode's own step (executor tool call → its next request; no otto code runs), median: alone / in the phase (before: 548 / 625 ms) | ${p.gapAlone} / ${p.gapPhase} ms | |`,
    `| hand-over from briefing to executor (briefing answered → executor's first request; the executor's session and otto's first read of the tree are made while the briefing runs), median: alone / in the phase (before, when they were made after it: 503 / 1197 ms) | ${p.handAlone} / ${p.handPhase} ms | |`,
    `| between two tasks run one after the other (last answer → next briefing request), median (before: 866 ms) | ${p.between} ms | |`,
    `| the same phase with OpenCode's snapshots off (\`"snapshot": false\`): measured ideal / phase (${PHASE_RUNS} runs each) | ${q.chainMs.join(" / ")} ms / ${q.phaseMs.join(" / ")} ms | |`,
    `| **phase / computed ideal, OpenCode's snapshots off** (median; before: 1.225, phase / measured ideal 1.112) | **${q.ratio.toFixed(3)}** (${(1 / q.ratio).toFixed(2)} of the ideal; phase / measured ideal ${q.ratioMeasured.toFixed(3)}) | ≤ 1.149 (≥ 0.87 of the ideal) |`,
    `| snapshots off: the chain outside the model's answers; OpenCode's step and the hand-over, alone / in the phase (medians; before: 606 ms; 156 / 200 ms; 289 / 528 ms) | ${outside(q)} ms; ${q.gapAlone} / ${q.gapPhase} ms; ${q.handAlone} / ${q.handPhase} ms | |`,
    `| OpenCode: session create + prompt + messages + delete (SDK, median of ${SESSIONS}) | ${s.raw} ms | |`,
    `| otto: \`runChild\` with dialog, same calls plus verification and events (median) | ${s.otto} ms | |`,
    `| **otto's own overhead per child session** (median of the ${SESSIONS} paired differences, 95 % bootstrap interval; before: 50 ms, −10 to 75 ms) | **${Math.round(s.overhead.median)} ms** (${Math.round(s.overhead.low)} to ${Math.round(s.overhead.high)} ms) | ≤ 50 ms |`,
    `| tasks.md lock wait, 16 writers × 50 updates in one process: p50 / p99 / max (before: 37 / 108 / 127 ms; at first 1 / 522 / 1167 ms) | ${l.p50} / ${l.p99} / ${l.max} ms | p99 ≤ 200 ms |`,
    `| the same, each writer a process of its own: p50 / p99 / max; updates lost (before: 28 / 817 / 1756 ms; 0 lost) | ${x.p50} / ${x.p99} / ${x.max} ms; ${x.lost} lost | none: the target is for one process's writers (below) |`,
    `| the 800 updates in all | ${l.totalMs} ms | |`,
    `| PR store (one PR document), 16 writers × 50 updates in one process: p50 / p99 / max; updates lost (before: 44 / 101 / 112 ms; 0 lost) | ${prLocks.p50} / ${prLocks.p99} / ${prLocks.max} ms; ${prLocks.lost} lost | p99 ≤ 200 ms, none lost |`,
    `| crew state (crew.json and the message stream), 16 writers × 50 transactions in one process: p50 / p99 / max; messages lost (before: 38 / 113 / 118 ms; 0 lost) | ${crewLocks.p50} / ${crewLocks.p99} / ${crewLocks.max} ms; ${crewLocks.lost} lost | p99 ≤ 200 ms, none lost |`,
    "",
    "The phase's excess over the computed ideal is the time each task's chain spends outside the model's answers (OpenCode's step work: snapshots, tool runs, message writes; session setup and teardown; otto's hand-over from briefing to executor and its session handling), paid once per round, and it grows in the phase, where 4 sessions share 2 cores (OpenCode's step alone and in the phase above). The measured ideal pays the per-chain time too, which is why the phase is closer to it. Otto's own overhead per child session is measured apart.",
    "",
    `Most of that time is OpenCode's snapshots of the work tree, the record behind its undo: it snapshots the tree at the start and the end of every step and diffs it for the session's summary (about 20 git processes a step, counted with strace), one snapshot at a time per work tree, so a phase's parallel sessions queue for them. With \`"snapshot": false\` the chain's time outside the model's answers falls from ${outside(p)} to ${outside(q)} ms, and the phase comes from ${(1 / p.ratio).toFixed(2)} to ${(1 / q.ratio).toFixed(2)} of the computed ideal (target 0.87). Otto cannot turn them off for its own sessions alone: OpenCode reads \`snapshot\` from the configuration of the whole instance, and a user's own sessions need it for undo. Otto's task sessions are deleted when their task is recorded, so their snapshots are never used; docs/execute.md (Speed) says when turning them off pays.`,
    "",
    "Lock waits are for 16 independent writers. In one process (a phase's parallel tasks, the watcher's PRs, a crew's agents all write from the one OpenCode process) they take turns per file before the cross-process lock (src/core/files.ts), so their wait is the queue in front of them; across processes the lock is polled (short retries), each round goes to one of the waiting processes at random, and one writer of 16 loses about 70 rounds in a row at the 99th percentile, which is the tail of the cross-process row. Flat polling every 4–8 ms or every 1–2 ms was tried and brought that p99 only to 255–370 ms, as the polling competes with the holder for the 2 cores; only a queue across processes would bound it, and 16 processes writing one file at once is not a case otto meets (two OpenCode instances on one spec are refused by the run lock).",
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection("## Execution engine", section);
}

runStandalone(import.meta.url, benchExecute, writeSection);
