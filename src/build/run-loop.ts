import path from "node:path";
import type { OttoError } from "../core/index.ts";
import { isBudgetStop } from "../cost/index.ts";
import { taskFailedReason } from "../execute/index.ts";
import type { CheckResult, RunVerdict } from "../workspace/index.ts";
import { decide, nextStagnant, type Decision } from "./decide.ts";
import { claimsProgress, claimsVerified, continuePrompt, fixPrompt, nextText, progressText, startPrompt, verifyPrompt } from "./prompts.ts";
import type { TaskSource, TaskView } from "./task-source.ts";
import { runTurn, type Builder } from "./turn.ts";
import { blockingChecks, buildVerdict, judgeChecks, preExistingLines } from "./verdict.ts";

export interface LoopDeps {
  repoRoot: string;
  source: TaskSource;
  builder: Builder;
  /** A hash of the working tree's changes (fingerprint.ts). */
  fingerprint(): Promise<string>;
  /** spec.verify, run by otto. */
  verify: readonly string[];
  runChecks: () => Promise<CheckResult[]>;
  /**
   * spec.verify's results on the tree as the build found it (run-build.ts): a check failing there
   * fails the build's work only when it gets worse. Empty: every failure is the build's.
   */
  baseline?: readonly CheckResult[];
  stopRequested: () => Promise<boolean>;
  /** Persists the loop's counters after every turn (state.ts). */
  save(update: { iteration: number; stagnantTurns: number; phase: "build" | "verify"; done: number; total: number }): Promise<void>;
  progress: (title: string) => void;
  signal?: AbortSignal;
  /** How often the stop file is looked for during a turn (default 1 s). */
  pollMs?: number;
  /** Each turn's spend: `begin` before it is prompted (with the task it works), `end` once it ended. */
  turn?: { begin(iteration: number, task?: string): void; end(iteration: number, task?: string): Promise<void> };
  /** The run's budget stop, once its budget is reached: no turn starts after it. */
  budgetStop?: () => OttoError | undefined;
}

export interface LoopOptions {
  maxIterations: number;
  stagnationLimit: number;
  /** Counters of a resumed loop. */
  iteration?: number;
  stagnantTurns?: number;
}

export type LoopEnd =
  /** `checks`: the last run, on the final tree; `verdict`: from it (undefined when no check ran). */
  | { kind: "done"; iterations: number; checks: CheckResult[]; verdict?: RunVerdict }
  | { kind: "stop"; reason: "stop_requested" | "stagnation" | "max_iterations"; iterations: number; view: TaskView }
  /** The run's budget was reached (`message`: what was spent of what); the loop resumes with a new one. */
  | { kind: "stop"; reason: "budget"; message: string; iterations: number; view: TaskView }
  | { kind: "pause"; reason: "interrupted"; iterations: number; view: TaskView }
  | { kind: "failed"; reason: string; iterations: number; view: TaskView };

/**
 * The build loop for one target: prompt the builder, read the tasks, decide (decide.ts), until the
 * work is done and verified or a reason to stop comes up. Runs inside the tool call.
 */
export async function runLoop(deps: LoopDeps, options: LoopOptions): Promise<LoopEnd> {
  const { source, builder } = deps;
  const rel = (p: string): string => path.relative(deps.repoRoot, p) || ".";
  const baseline = deps.baseline ?? [];
  let iteration = options.iteration ?? 0;
  let stagnantTurns = options.stagnantTurns ?? 0;
  let view = await source.read();
  let checks: CheckResult[] = [];
  let verifying = false;
  let prompt: string;
  if (view.done < view.total) {
    prompt = startPrompt(source, view, rel, deps.verify);
  } else {
    checks = await deps.runChecks();
    verifying = true;
    prompt = nextPrompt({ kind: judgeChecks(baseline, checks).blocking ? "fix" : "confirm" });
  }
  let sent = await builder.userMessages();

  function nextPrompt(decision: Decision): string {
    // Only what the build caused goes back for fixes; what failed before it is named, not assigned.
    if (decision.kind === "fix") return fixPrompt(source, blockingChecks(baseline, checks), rel);
    if (decision.kind === "confirm") return verifyPrompt(source, deps.verify, rel, preExistingLines(baseline, checks));
    return continuePrompt(source, view, rel, decision.kind === "continue" ? decision.remind : undefined);
  }

  for (;;) {
    if (await deps.stopRequested()) return { kind: "stop", reason: "stop_requested", iterations: iteration, view };
    if (iteration >= options.maxIterations) return { kind: "stop", reason: "max_iterations", iterations: iteration, view };
    const budget = deps.budgetStop?.();
    if (budget) return { kind: "stop", reason: "budget", message: budget.message, iterations: iteration, view };
    const before = { text: view.text, tree: await deps.fingerprint() };
    iteration++;
    await deps.save({ iteration, stagnantTurns, phase: verifying ? "verify" : "build", done: view.done, total: view.total });
    deps.progress(
      `otto build ${source.target.name}: turn ${iteration}/${options.maxIterations} · ${verifying ? "verifying" : `${progressText(view)}; next: ${nextText(view)}`}`,
    );
    sent++;
    const task = verifying ? undefined : view.next?.id;
    const n = iteration;
    deps.turn?.begin(n, task);
    let turn: Awaited<ReturnType<typeof runTurn>>;
    try {
      turn = await runTurn(builder, prompt, { stopRequested: deps.stopRequested, pollMs: deps.pollMs ?? 1000, signal: deps.signal });
    } catch (error) {
      if (!isBudgetStop(error)) throw error;
      // Like a cancel: the cut turn does not count, the resumed loop prompts it again.
      iteration--;
      await deps.save({ iteration, stagnantTurns, phase: verifying ? "verify" : "build", done: view.done, total: view.total });
      return { kind: "stop", reason: "budget", message: error.message, iterations: iteration, view: await source.read() };
    } finally {
      await deps.turn?.end(n, task);
    }
    if (turn.kind === "stopped") return { kind: "stop", reason: "stop_requested", iterations: iteration, view };
    if (turn.kind === "looped") return { kind: "failed", reason: turn.reason, iterations: iteration, view: await source.read() };
    const reply = turn.kind === "reply" ? turn.text : "";
    const interrupted = turn.kind === "aborted" || (await builder.userMessages()) > sent;
    if (turn.kind === "foreign" && !interrupted) throw turn.error;
    view = await source.read();
    const tasksChanged = view.text !== before.text;
    const filesChanged = (await deps.fingerprint()) !== before.tree;
    const failed = taskFailedReason(reply);
    if (failed && !interrupted) return { kind: "failed", reason: failed, iterations: iteration, view };
    checks = view.done >= view.total && !interrupted ? await deps.runChecks() : [];
    const decision = decide({
      iteration,
      maxIterations: options.maxIterations,
      remaining: view.total - view.done,
      total: view.total,
      tasksChanged,
      filesChanged,
      claimedProgress: claimsProgress(reply),
      stagnantTurns,
      stagnationLimit: options.stagnationLimit,
      interrupted,
      stopRequested: await deps.stopRequested(),
      verifying,
      claimedVerified: claimsVerified(reply),
      checks: view.done >= view.total ? judgeChecks(baseline, checks) : undefined,
    });
    stagnantTurns = nextStagnant({ tasksChanged, filesChanged, stagnantTurns });
    verifying = decision.kind === "fix" || decision.kind === "confirm";
    await deps.save({ iteration, stagnantTurns, phase: verifying ? "verify" : "build", done: view.done, total: view.total });
    switch (decision.kind) {
      case "done":
        // The checks just ran on the tree the build leaves: they are its last run, and its verdict.
        return { kind: "done", iterations: iteration, checks, verdict: buildVerdict(checks, baseline) };
      case "stop":
        return { kind: "stop", reason: decision.reason, iterations: iteration, view };
      case "pause":
        return { kind: "pause", reason: decision.reason, iterations: iteration, view };
      default:
        prompt = nextPrompt(decision);
    }
  }
}
