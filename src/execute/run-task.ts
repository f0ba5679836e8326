import path from "node:path";
import { isOttoError, errorLine } from "../core/index.ts";
import { currentAccount, formatUsage, type Account } from "../cost/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import type { Task } from "../spec/index.ts";
import type { ChildSession } from "../session/index.ts";
import { snapshotTree, type TreeSnapshot } from "../workspace/index.ts";
import { briefTask, taskRules } from "./briefing.ts";
import { executeTaskVars, type SpecContext } from "./context.ts";
import { acceptanceFailure, acceptanceField, runAcceptance } from "./acceptance.ts";
import type { SharedChange } from "./attribution.ts";
import { attemptEvidenceLine, attemptFields, changedDuring, judgeEvidence, type AttemptEvidence } from "./evidence.ts";
import { writeAttempt } from "./history.ts";
import { sameFailure, type Failure } from "./failure-fingerprint.ts";
import { budgetStopped, cancelled, counted, discardPass, EXECUTOR, openPass, promptPass, type PassResult } from "./pass.ts";
import { taskFailedReason } from "./plan.ts";
import type { PhaseFiles } from "./task-files.ts";
import type { TaskStore } from "./task-store.ts";
import type { ExecuteDeps, Models, TaskResult } from "./types.ts";

export interface TaskRun {
  deps: ExecuteDeps;
  models: Models;
  ctx: SpecContext;
  store: TaskStore;
  task: Task;
  /** The other tasks of the phase that run at the same time. */
  parallel: readonly Task[];
  /** Called when an attempt starts (progress). */
  onAttempt?: (attempt: number) => void;
  /** Set when tasks of the phase may run at the same time: a task's files are the ones its sessions changed (task-files.ts). */
  files?: PhaseFiles;
}

/** The end of a failed attempt's final message the next attempt is shown. */
const OUTPUT_TAIL = 3_000;

/**
 * One task to `completed` or `failed`: status `running` in tasks.md, a brief (once per task),
 * then attempts in fresh executor sessions until one is done, at most 1 + spec.max_task_retries.
 * Done means the session ended without error or timeout, its final message does not end with
 * `TASK_FAILED: <reason>`, and it shows evidence: files changed between the attempt's own
 * snapshots of the tree (in a parallel phase, those its sessions changed: attribution.ts), or a
 * `NO_CHANGES: <reason>` line (evidence.ts). Each retry is told the
 * previous attempt's error and output. An attempt that fails the same way as the one before it
 * (failure-fingerprint.ts) ends the retries: the retry was shown that failure and met it again.
 * Every attempt is recorded in history/run-NNN.md before its session is deleted.
 */
export async function runTask(run: TaskRun): Promise<TaskResult> {
  const { result, settled } = await startTask(run);
  await settled;
  return result;
}

/**
 * runTask in two parts: `result` resolves when the task's sessions are done and its verdict is
 * known; `settled` when its last attempt is in history and its status in tasks.md. A phase frees
 * the task's slot at the first, so the next task starts while the second is written.
 */
export async function startTask(run: TaskRun): Promise<{ result: TaskResult; settled: Promise<void> }> {
  const { deps, models, ctx, store, task } = run;
  const started = Date.now();
  const maxAttempts = 1 + deps.settings.maxTaskRetries;
  const result: TaskResult = {
    id: task.id,
    title: task.title,
    group: task.parallel_group,
    status: "failed",
    attempts: 0,
    durationMs: 0,
    summary: "",
    history: [],
    dialogs: [],
  };
  // Not awaited: the store's queue keeps its writes in order, so `running` always lands before the
  // final status, and the task need not wait for the file lock to start (crash-wise, a task still
  // `pending` on disk is the same as a `running` one: both run again).
  const marked = store.set(task.id, "running");
  // Handled here so a failed write cannot become an unhandled rejection; `await marked` below rethrows it.
  marked.catch(() => undefined);
  // The first attempt's session opens, and the tree is read, while the briefing runs (the briefing
  // is read-only): the hand-over from brief to executor is then only the prompt.
  // The task's account (`task <id>`, opened by the caller) and one child per attempt: each history record names its attempt's spend.
  const account = currentAccount();
  const attempts = new Map<number, Account>();
  const attemptAccount = (n: number): Account | undefined => {
    if (account && !attempts.has(n)) attempts.set(n, account.child(`attempt ${n}`));
    return attempts.get(n);
  };
  const rules = await taskRules(deps, ctx, task);
  const executorOptions = (attempt: number) =>
    ({
      agent: EXECUTOR,
      model: models.primary,
      title: `otto: ${task.id} attempt ${attempt}`,
      account: attemptAccount(attempt),
      ...(rules ? { system: rules } : {}),
    }) as const;
  let opened: Promise<ChildSession> | undefined;
  let firstBefore: Promise<TreeSnapshot> | undefined;
  let firstBeforeAt: number | undefined;
  const files = run.files;
  const briefing = await briefTask(
    deps,
    models,
    ctx,
    task,
    () => {
      opened = openPass(deps, executorOptions(1));
      opened.catch(() => undefined);
      firstBeforeAt = files?.now();
      firstBefore = snapshotTree(deps.git, deps.repoRoot);
      firstBefore.catch(() => undefined);
    },
    rules,
  );
  let previous: string | undefined;
  let lastFailure: Failure | undefined;
  let evidence: AttemptEvidence | undefined;
  let acceptance: string | undefined;
  let record: Promise<void> | undefined;

  for (let attempt = 1; attempt <= maxAttempts && !cancelled(deps); attempt++) {
    run.onAttempt?.(attempt);
    result.attempts = attempt;
    const prompt = renderPrompt("execute-task", executeTaskVars(ctx, task, { brief: briefing.brief, parallel: run.parallel, previous }), {
      env: deps.env,
    });
    const startedAt = deps.now();
    const windowStart = firstBeforeAt ?? files?.now() ?? 0;
    const before = await (firstBefore ?? snapshotTree(deps.git, deps.repoRoot));
    firstBefore = undefined;
    firstBeforeAt = undefined;
    // In a parallel phase the session is watched from before its first prompt: its tool calls are recorded.
    if (files) {
      const session = opened ?? openPass(deps, executorOptions(attempt));
      opened = session.then((child) => (files.watch(task.id, child.id), child));
    }
    // The tree is read again as soon as the session answers, beside the read of its dialog.
    let after: Promise<TreeSnapshot> | undefined;
    const pass = await promptPass(deps, executorOptions(attempt), prompt, {
      opened,
      answered: () => {
        after = snapshotTree(deps.git, deps.repoRoot);
        after.catch(() => undefined);
      },
    });
    opened = undefined;
    files?.ended(pass.sessionID);
    const changed = changedDuring(before, await (after ?? snapshotTree(deps.git, deps.repoRoot)), deps.specInclude ?? []);
    // Alone, the task's files are what changed while it ran; beside others, what its sessions changed.
    const credit = files ? await files.credit(task.id, changed, { start: windowStart, end: files.now() }) : undefined;
    const own = credit?.own ?? changed;
    const mine = credit?.shared.filter((s) => s.tasks.includes(task.id)) ?? [];
    result.shared = credit?.shared;
    let verdict = judge(pass, own, mine);
    // The task's own check (tasks.md `verify`) decides an attempt that showed evidence.
    const accepted = verdict.ok ? await runAcceptance(deps, task) : undefined;
    const failedCheck = accepted && !accepted.passed ? acceptanceFailure(accepted) : undefined;
    if (accepted && failedCheck) {
      verdict = {
        ok: false,
        reason: failedCheck.reason,
        failure: {
          kind: "check",
          command: accepted.command,
          exitCode: accepted.exitCode,
          timedOut: accepted.timedOut,
          output: accepted.output,
        },
      };
    }
    const repeated = !verdict.ok && !cancelled(deps) && sameFailure(lastFailure, verdict.failure);
    // Written once the attempt's session is closed and counted: its spend is exact.
    const written = counted(deps)
      .then(() =>
        writeAttempt(
          ctx.paths.history,
          {
            slug: ctx.slug,
            taskId: task.id,
            title: task.title,
            attempt,
            maxAttempts,
            model: pass.model,
            sessionID: pass.sessionID,
            startedAt,
            durationMs: pass.durationMs,
            result: verdict.ok
              ? "completed"
              : budgetStopped(deps)
                ? `interrupted (the task goes back to pending): ${verdict.reason}`
                : `failed: ${verdict.reason}${repeated ? ` (the same failure as attempt ${attempt - 1}: no more retries)` : ""}`,
            briefing: briefing.note,
            finalMessage: pass.text,
            dialog: pass.dialog,
            evidence: attemptEvidenceLine(own, verdict, mine),
            ...(accepted ? { acceptance: acceptanceField(accepted) } : {}),
            ...(attemptAccount(attempt) ? { cost: attemptAccount(attempt)?.usage } : {}),
          },
          deps.secrets,
        ),
      )
      .then((file) => void result.history.push(path.relative(deps.repoRoot, file)));
    // A retry waits for its predecessor's record (the history keeps their order); the last
    // attempt's record is written while the next task starts.
    if (!verdict.ok) await written;
    else record = written;
    result.dialogs.push(`## ${task.id} (attempt ${attempt}: ${verdict.ok ? "completed" : "failed"})\n\n${pass.dialog}`);
    if (verdict.ok) {
      result.status = "completed";
      result.summary = pass.text;
      result.error = undefined;
      evidence = verdict.evidence;
      if (accepted) acceptance = acceptanceField(accepted);
      result.files = evidence.files;
      if (evidence.noChanges !== undefined) result.noChanges = evidence.noChanges;
      break;
    }
    result.error = verdict.reason;
    if (repeated) {
      result.error = `failed the same way twice in a row: ${verdict.reason}`;
      break;
    }
    lastFailure = verdict.failure;
    previous = previousAttempt(
      attempt,
      verdict.reason,
      failedCheck ? `${pass.text}\n\nThe acceptance check's output:\n\n${failedCheck.output}` : pass.text,
    );
  }

  if (opened) discardPass(deps, opened);
  result.durationMs = Date.now() - started;
  const settle = async (): Promise<void> => {
    await record;
    await marked;
    // The task's spend in this run (brief and attempts), every session of it counted.
    await counted(deps);
    if (account) result.usage = account.usage;
    // Only where calls are counted (the plugin's meter): an uncounted run would record a false zero.
    const cost: Record<string, string> = account && deps.runner.meter ? { cost: formatUsage(account.usage) } : {};
    if (result.status === "completed") {
      await store.set(task.id, "completed", {
        ...(evidence ? attemptFields(evidence) : {}),
        ...(acceptance ? { acceptance } : {}),
        ...cost,
      });
    } else if (result.cancelled) {
      await store.set(task.id, "pending");
    } else {
      await store.set(task.id, "failed", {
        last_error: `${result.error ?? "failed"} (after ${result.attempts} attempt${result.attempts === 1 ? "" : "s"})`,
        ...cost,
      });
    }
  };
  if (result.status !== "completed") {
    if (cancelled(deps)) {
      // Cancelling is not failing: the task runs again on the next execute.
      result.status = "pending";
      result.cancelled = true;
    } else {
      result.summary = result.error ?? "failed";
    }
  }
  const settled = settle();
  // Handled here so it cannot become an unhandled rejection; the caller's await rethrows it.
  settled.catch(() => undefined);
  return { result, settled };
}

type Verdict = { ok: true; evidence: AttemptEvidence } | { ok: false; reason: string; failure: Failure };

function judge(pass: PassResult, files: readonly string[], shared: readonly SharedChange[]): Verdict {
  if (pass.error !== undefined) {
    const code = isOttoError(pass.error) ? pass.error.code : undefined;
    const line = errorLine(pass.error);
    if (code === "session_timeout") return { ok: false, reason: `timed out: ${line}`, failure: { kind: "timeout" } };
    return { ok: false, reason: line, failure: { kind: "error", ...(code ? { code } : {}), message: line } };
  }
  const failed = taskFailedReason(pass.text);
  if (failed !== undefined) return { ok: false, reason: `TASK_FAILED: ${failed}`, failure: { kind: "task_failed", reason: failed } };
  const verdict = judgeEvidence(files, pass.text, shared);
  return verdict.ok ? verdict : { ...verdict, failure: { kind: "no_evidence" } };
}

function previousAttempt(attempt: number, reason: string, output: string): string {
  const tail = output.trim().length > OUTPUT_TAIL ? `…${output.trim().slice(-OUTPUT_TAIL)}` : output.trim();
  return [`Attempt ${attempt} failed: ${reason}`, tail ? `\nThe end of its final message:\n\n${tail}` : ""].join("\n");
}
