import pLimit from "p-limit";
import { commitAll } from "../workspace/index.ts";
import { baselineOf, guardOf } from "./baseline.ts";
import { renderCommitMessage, type OttoTrailer } from "./commit-message.ts";
import { readDocs, type SpecContext } from "./context.ts";
import { harvestQuestions } from "./harvest.ts";
import { writeStepRecord } from "./history.ts";
import { currentAccount, withAccount } from "../cost/index.ts";
import { childAccount } from "./cost.ts";
import { budgetStopped, cancelled, counted } from "./pass.ts";
import { hardeningPass, reviewGate } from "./phase-gates.ts";
import { blockedInPhase, phaseHasWork, runnableInPhase, tasksOf } from "./plan.ts";
import { phaseTitle, STOPPED_BY_BUDGET, type PhaseCounts, type PhaseReport } from "./progress.ts";
import { startTask } from "./run-task.ts";
import type { TaskStore } from "./task-store.ts";
import type { ExecuteDeps, Models, StepRecord, TaskResult } from "./types.ts";
import { blockingResults, verifyFailure, verifyPhase } from "./verify-phase.ts";
import { checksField, evidenceLine, filesField } from "./evidence.ts";
import { mergeShared, sharedLines } from "./attribution.ts";
import { PhaseFiles } from "./task-files.ts";
import { errorLine } from "../core/index.ts";

export interface PhaseRun {
  deps: ExecuteDeps;
  models: Models;
  store: TaskStore;
  ctx: SpecContext;
  group: number;
  /** Sha of the phase's commit when an earlier run committed it. */
  committed?: string;
}

/**
 * One phase: skip what a failed dependency blocks, run the runnable tasks concurrently (at most
 * spec.max_parallel_tasks), then, when at least one task is completed, the review gate, the two
 * hardening passes, question harvesting (alongside the gates, never blocking), verification, and
 * one commit of what the run changed (never the user's own uncommitted edits: see baseline.ts). Tasks are done only when verification passes
 * (failUnverified). A commit failure throws (the run stops there).
 */
export async function runPhase(run: PhaseRun): Promise<PhaseReport> {
  const { deps, models, store, group } = run;
  const report: PhaseReport = { group, results: [], skipped: [], steps: [] };
  for (const change of blockedInPhase(store.list, group)) {
    await store.set(change.id, "skipped", { skip_reason: change.reason });
    report.skipped.push(change);
  }
  const counts = countPhase(run);
  const runnable = runnableInPhase(store.list, group);
  deps.progress(phaseTitle(counts));
  if (runnable.length > 0) deps.toast(`Phase ${group}: ${runnable.length} task${runnable.length === 1 ? "" : "s"} starting`, "info");

  const limit = pLimit(Math.max(1, deps.settings.maxParallelTasks));
  // Tasks that may run at the same time share the tree: their files are credited by what their sessions' tools did.
  const writes = deps.runner.writes;
  const files = writes && deps.settings.maxParallelTasks > 1 && runnable.length > 1 ? new PhaseFiles(writes, deps.repoRoot) : undefined;
  report.results = await Promise.all(
    runnable.map(async (task): Promise<TaskResult> => {
      // The slot is the task's sessions; its records are written after the slot is free.
      const started = await limit(async () => {
        counts.running++;
        deps.progress(phaseTitle(counts));
        // Named `task <id>`: the estimate before a run finds tasks in the ledger by it (src/cost/estimate.ts).
        const outcome = await withAccount(childAccount(`task ${task.id}`), () =>
          startTask({ ...run, task, parallel: runnable.filter((t) => t.id !== task.id), ...(files ? { files } : {}) }),
        ).catch(async (error: unknown) => ({ result: await crashed(run, task.id, error), settled: Promise.resolve() }));
        counts.running--;
        return outcome;
      });
      const result = await started.settled.then(
        () => started.result,
        (error: unknown) => crashed(run, task.id, error),
      );
      if (result.status === "completed") counts.done++;
      if (result.status === "failed") counts.failed++;
      deps.progress(phaseTitle(counts));
      return result;
    }),
  ).finally(() => files?.release());
  const shared = mergeShared(
    report.results.map((r) => r.shared),
    report.results.map((r) => r.files),
  );
  if (shared.length > 0) report.shared = shared;
  if (cancelled(deps)) return { ...report, note: stopNote(deps) };
  if (!phaseHasWork(store.list, group)) return { ...report, note: "no task of the phase is completed" };
  // Committed earlier and nothing new completed now: committing again would record nothing new.
  if (run.committed && !report.results.some((r) => r.status === "completed")) return { ...report, earlier: run.committed.slice(0, 7) };

  const ctx: SpecContext = { ...run.ctx, docs: await readDocs(run.ctx.paths) };
  const summaries = report.results.map((r) => `### ${r.id} (${r.status})\n\n${r.summary.trim() || "(no summary)"}`).join("\n\n");
  const harvest = withAccount(childAccount("question harvest"), () =>
    harvestQuestions(
      deps,
      models,
      ctx,
      group,
      report.results.flatMap((r) => r.dialogs),
    ),
  );
  const step = async (label: string, account: string, fn: () => Promise<StepRecord | StepRecord[]>): Promise<void> => {
    if (cancelled(deps)) return;
    deps.progress(`Phase ${group}: ${label}`);
    report.steps.push(...[await withAccount(childAccount(account), fn)].flat());
  };
  await step("review gate (secondary reviews, primary fixes)", "review gate", () => reviewGate(deps, models, ctx, group, summaries));
  await step("external assumptions (primary)", "external assumptions", () =>
    hardeningPass(deps, models, ctx, group, "external-assumptions"),
  );
  await step("domain hardening (primary)", "domain hardening", () => hardeningPass(deps, models, ctx, group, "domain-hardening"));
  deps.progress(`Phase ${group}: verification`);
  const verify = await withAccount(childAccount("verification fixes"), () => verifyPhase(deps, models, ctx, group));
  report.steps.push(...verify.steps);
  report.verify = verify.state;
  report.steps.push(await harvest);
  if (cancelled(deps)) return { ...report, note: stopNote(deps) };
  if (verify.state === "failed") await failUnverified(run, report, verifyFailure(verify, deps), counts);
  const done = report.results.filter((r) => r.status === "completed");
  const lastRound = verify.rounds.at(-1) ?? [];
  const checks = checksField(lastRound, blockingResults(deps, lastRound));
  for (const r of done) {
    r.checks = checks;
    await store.set(r.id, "completed", { checks });
  }

  const trailer: OttoTrailer = { kind: "phase", slug: ctx.slug, group };
  const tasks = tasksOf(store.list, group);
  // A task failed by verification keeps its executor's summary: the work is committed and later phases build on it.
  const notes = new Map(
    report.results.map((r) => [
      r.id,
      r.status === "completed" ? r.summary : r.summary && r.summary !== r.error ? `${r.error ?? "failed"}\n\n${r.summary}` : r.error,
    ]),
  );
  const message = renderCommitMessage({
    slug: ctx.slug,
    trailer,
    subject: `phase ${group}: ${tasks.map((t) => t.id).join(", ")}`,
    tasks: tasks.map((t) => ({
      id: t.id,
      title: t.title,
      status: t.status,
      note: notes.get(t.id) ?? report.skipped.find((s) => s.id === t.id)?.reason,
    })),
    steps: [
      ...report.steps.filter((s) => !s.name.startsWith("verification")).map((s) => `${capitalise(s.name)}: ${s.outcome}`),
      verify.line,
    ],
    verify: verify.state,
  });
  deps.progress(`Phase ${group}: committing`);
  // The phase's spend so far (its tasks, gates and verification), every session of it counted.
  await counted(deps);
  report.usage = currentAccount()?.usage;
  await writeStepRecord(
    ctx.paths.history,
    {
      slug: ctx.slug,
      name: `phase-${group}`,
      heading: `Phase ${group}`,
      at: deps.now(),
      steps: report.steps,
      evidence: [...done.map(evidenceLine), ...sharedLines(shared, (f) => filesField(f, 50))],
      ...(report.usage ? { usage: report.usage } : {}),
    },
    deps.secrets,
  );
  // No empty commits: a phase is recorded without changes only when every task it completed said why nothing had to change.
  const allowEmpty = done.every((r) => r.noChanges !== undefined);
  const commit = await commitAll(deps.git, deps.repoRoot, message, {
    baseline: baselineOf(deps),
    include: deps.specInclude ?? [],
    ...guardOf(deps),
    allowEmpty,
    secrets: deps.secrets,
  });
  if (commit.kept.length > 0) report.kept = commit.kept;
  if (commit.ignored.length > 0) report.ignored = commit.ignored;
  if (commit.quarantined) report.quarantined = commit.quarantined;
  if (!commit.sha) return { ...report, note: "nothing to commit: no change of the phase is left in the working tree" };
  report.commit = commit.sha;
  // The sha exists only once the commit does, so this field reaches git with the next commit.
  for (const r of done) {
    r.commit = commit.sha;
    await store.set(r.id, "completed", { commit: commit.sha });
  }
  const failed = tasks.filter((t) => t.status !== "completed").length;
  deps.toast(
    `Phase ${group} committed: ${report.commit} (${verify.state === "failed" ? "verification FAILED" : `verification ${verify.state}`}${failed ? `, ${failed} task(s) not completed` : ""})`,
    verify.state === "failed" || failed ? "warning" : "success",
  );
  return report;
}

/**
 * Done means verified: when spec.verify stays red after the fix sessions, the tasks this commit
 * would be the first to record as completed (all of the phase's completed tasks, or only this
 * run's when an earlier run committed the phase) become `failed`. Their work is still committed;
 * dependents are skipped, and the next execute retries them as it retries any failed task.
 */
async function failUnverified(run: PhaseRun, report: PhaseReport, reason: string, counts: PhaseCounts): Promise<void> {
  const thisRun = new Set(report.results.filter((r) => r.status === "completed").map((r) => r.id));
  const unverified = tasksOf(run.store.list, run.group).filter((t) => t.status === "completed" && (!run.committed || thisRun.has(t.id)));
  for (const task of unverified) await run.store.set(task.id, "failed", { last_error: reason });
  for (const result of report.results) {
    if (!unverified.some((t) => t.id === result.id)) continue;
    result.status = "failed";
    result.error = reason;
  }
  counts.done -= unverified.length;
  counts.failed += unverified.length;
  run.deps.progress(phaseTitle(counts));
}

/**
 * A task whose bookkeeping failed (tasks.md unreadable, history not writable): recorded as failed
 * so the other tasks of the phase run to their end instead of being abandoned mid-session.
 */
async function crashed(run: PhaseRun, id: string, error: unknown): Promise<TaskResult> {
  const task = run.store.list.tasks.find((t) => t.id === id);
  const reason = `otto could not record the task: ${errorLine(error)}`;
  await run.store.set(id, "failed", { last_error: reason }).catch(() => undefined);
  return {
    id,
    title: task?.title ?? id,
    group: run.group,
    status: "failed",
    attempts: 0,
    durationMs: 0,
    summary: reason,
    error: reason,
    history: [],
    dialogs: [],
  };
}

function countPhase(run: PhaseRun): PhaseCounts {
  const tasks = tasksOf(run.store.list, run.group);
  return {
    group: run.group,
    total: tasks.length,
    done: tasks.filter((t) => t.status === "completed").length,
    running: 0,
    failed: tasks.filter((t) => t.status === "failed").length,
  };
}

/** Why a phase stopped before its commit: the tool was cancelled, or the run's budget was reached. */
function stopNote(deps: ExecuteDeps): string {
  return budgetStopped(deps) ? STOPPED_BY_BUDGET : "cancelled";
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
