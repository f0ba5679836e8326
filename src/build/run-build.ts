import type { SandboxMode } from "../sandbox/index.ts";
import type { Repo } from "../config/index.ts";
import path from "node:path";
import type { Env } from "../core/index.ts";
import {
  assertCommitIdentity,
  commitAll,
  describeBaseline,
  snapshotGitControl,
  snapshotTree,
  type CheckResult,
  type GitRun,
} from "../workspace/index.ts";
import type { NotifyEvent } from "../notify/index.ts";
import { Account, addUsage, formatUsage, ZERO_USAGE, type Budget, type Usage } from "../cost/index.ts";
import type { ArchiveResult } from "./archive.ts";
import { lockTarget } from "./build-lock.ts";
import { treeFingerprint } from "./fingerprint.ts";
import { runLoop, type LoopEnd } from "./run-loop.ts";
import { recordIteration, TurnAccount } from "./spend.ts";
import type { BuildState, BuildStore, BuildTarget, IterationSpend } from "./state.ts";
import { targetFlag } from "./targets.ts";
import { taskSource } from "./task-source.ts";
import type { Builder } from "./turn.ts";
import { keptResult, unverifiedHeadline } from "./verdict.ts";
import { commitMessage, humanNeeded, noteOf, statusOf, UNVERIFIED, verified } from "./loop-end.ts";

/** Everything a build touches; build-deps.ts wires the real ones, tests pass fakes. */
export interface BuildDeps {
  repoRoot: string;
  /** The tracked repos (config.repos): where a build started on the default branch commits. */
  repos?: readonly Repo[];
  store: BuildStore;
  /**
   * Opens the builder child session for a target (kept after the loop, for the user): the session
   * `resume` when it still exists (a resumed loop keeps its conversation), else a new one. Its
   * model calls are charged to `account` (src/cost).
   */
  openBuilder(target: BuildTarget, resume?: string, account?: Account): Promise<Builder & { close(): Promise<void> }>;
  git: GitRun;
  verify: readonly string[];
  runChecks: () => Promise<CheckResult[]>;
  archive(target: BuildTarget): Promise<ArchiveResult>;
  notify(event: NotifyEvent): Promise<void>;
  progress: (title: string) => void;
  now: () => Date;
  pid: number;
  signal?: AbortSignal;
  pollMs?: number;
  /** The environment git runs with (the plugin's). */
  env?: Env;
  /** otto.jsonc `sandbox`: where the loop's commands run (default auto); the summary says when none could. */
  sandbox?: SandboxMode;
  /** `git.hooks: "run"`: the final commit runs the repository's hooks, in the sandbox this mode says. */
  commitHooks?: { sandbox: SandboxMode };
  /** The known secrets: a file holding one is not committed. */
  secrets?: readonly string[];
  /** The run's budget (--budget, --max-tokens, limits.run_*): the loop stops when it is reached. */
  budget?: Budget;
  /** Waits until every model call so far is counted (the meter's flush). */
  flushSpend?: () => Promise<void>;
}

export interface BuildOptions {
  maxIterations: number;
  stagnationLimit: number;
  /** The run's account (made here when not given): every target's spend is its. */
  account?: Account;
}

export interface TargetResult {
  target: BuildTarget;
  end: LoopEnd;
  sessionID: string;
  /** Said when a resumed loop could not reopen its builder session. */
  sessionNote?: string;
  commit?: string;
  /** Paths left uncommitted: they had the user's changes before the loop and the builder changed them too. */
  kept?: string[];
  /** Paths git ignored when the loop started and the builder un-ignored: the user's, left out. */
  ignored?: string[];
  archive?: ArchiveResult;
  /** What this run's turns used, in all and per turn. */
  spend: Usage;
  iterations: IterationSpend[];
  /** What the loop used over every run of it (a resumed loop's earlier runs too). */
  total: Usage;
  /** The baseline of the checks in one line, when one of them failed before the build ("baseline: npm test: exit 1 (pre-existing)"). */
  baseline?: string;
}

/** The account of a build run: its labels say which repository, target and run the ledger's calls are for. */
export function buildAccount(deps: Pick<BuildDeps, "repoRoot" | "budget" | "now">, targets: readonly BuildTarget[]): Account {
  const only = targets.length === 1 ? targets[0] : undefined;
  return new Account(only ? `build ${only.name}` : "build", {
    labels: { repo: deps.repoRoot, run: deps.now().toISOString(), ...(only ? { build: only.name } : {}) },
    ...(deps.budget ? { budget: deps.budget } : {}),
  });
}

/** Builds the targets in order; the next one starts only when the previous one is done. */
export async function runBuild(deps: BuildDeps, targets: readonly BuildTarget[], options: BuildOptions): Promise<TargetResult[]> {
  const run = options.account ?? buildAccount(deps, targets);
  const results: TargetResult[] = [];
  for (const target of targets) {
    const account = targets.length === 1 ? run : run.child(`build ${target.name}`, { labels: { build: target.name } });
    const result = await buildOne(deps, target, options, account);
    results.push(result);
    if (result.end.kind !== "done") break;
  }
  return results;
}

/**
 * A paused or stopped loop resumes with its counters and its builder session; any other ending
 * starts afresh. Read under the target's lock, `running` is a loop whose process died mid-turn.
 */
function resumable(state: BuildState | undefined): state is BuildState {
  return state !== undefined && (state.status === "paused" || state.status === "stopped" || state.status === "running");
}

async function buildOne(deps: BuildDeps, target: BuildTarget, options: BuildOptions, account: Account): Promise<TargetResult> {
  const release = await lockTarget(deps.store.lockPath(target), target.name, {
    holder: () => deps.store.read(target),
    flag: targetFlag(target),
  });
  try {
    return await buildLocked(deps, target, options, account);
  } finally {
    await release();
  }
}

async function buildLocked(deps: BuildDeps, target: BuildTarget, options: BuildOptions, account: Account): Promise<TargetResult> {
  const previous = await deps.store.read(target);
  await deps.store.clearStop(target);
  const source = taskSource(deps.repoRoot, target);
  // A target without a tasks file fails here, before a session is opened for nothing; so does a
  // tree where git knows no identity, since a finished loop is committed.
  await source.read();
  await assertCommitIdentity(deps.git, deps.repoRoot, "run /otto-build again");
  const resume = resumable(previous) ? previous : undefined;
  // Taken before the first turn and kept with the loop's state, so a resumed loop commits its own
  // earlier work too, and never the user's uncommitted edits.
  const baseline = resume?.baseline ?? (await snapshotTree(deps.git, deps.repoRoot));
  // Git's config and hooks before this loop's turns: the final commit runs hooks with otto's environment.
  const env = deps.env ?? process.env;
  const gitControl = await snapshotGitControl(deps.repoRoot, { env });
  // A resumed loop's tree holds its earlier turns' work: only its first baseline is the project's own.
  const checkBaseline = resume ? (resume.checkBaseline ?? []) : await runBaseline(deps, target);
  // A resumed loop's earlier spend stays on record; the budget counts this run's only.
  const spentBefore = resume?.spend ?? ZERO_USAGE;
  const turns = new TurnAccount(account);
  let iterations: IterationSpend[] = resume?.iterations ?? [];
  const ran: IterationSpend[] = [];
  let turn: Account | undefined;
  const builder = await deps.openBuilder(target, resume?.sessionID, turns);
  const sessionNote =
    resume?.sessionID !== undefined && builder.id !== resume.sessionID
      ? `The builder session ${resume.sessionID} of the previous loop no longer exists; the loop goes on in a new session, ${builder.id}.`
      : undefined;
  if (sessionNote) deps.progress(`otto build ${target.name}: ${sessionNote}`);
  let state: BuildState = {
    target,
    status: "running",
    phase: "build",
    iteration: resume?.iteration ?? 0,
    maxIterations: options.maxIterations,
    stagnantTurns: resume?.stagnantTurns ?? 0,
    sessionID: builder.id,
    baseline,
    checkBaseline: checkBaseline.map(keptResult),
    pid: deps.pid,
    updatedAt: deps.now().toISOString(),
    spend: spentBefore,
    iterations,
    ...(deps.budget
      ? {
          budget: {
            ...(deps.budget.usd !== undefined ? { usd: deps.budget.usd } : {}),
            ...(deps.budget.tokens !== undefined ? { tokens: deps.budget.tokens } : {}),
          },
        }
      : {}),
  };
  const save = async (patch: Partial<BuildState>): Promise<void> => {
    state = { ...state, ...patch, updatedAt: deps.now().toISOString() };
    await deps.store.write(state);
  };
  const spent = (): Partial<BuildState> => ({ spend: addUsage(spentBefore, account.usage), iterations });
  await save({});
  let result: TargetResult | undefined;
  let notice: NotifyEvent | undefined;
  try {
    const end = await runLoop(
      {
        repoRoot: deps.repoRoot,
        source,
        builder,
        fingerprint: () => treeFingerprint(deps.git, deps.repoRoot),
        verify: deps.verify,
        runChecks: deps.runChecks,
        baseline: checkBaseline,
        stopRequested: () => deps.store.stopRequested(target),
        save: ({ done, total, ...rest }) => save({ ...rest, progress: { done, total } }),
        progress: deps.progress,
        signal: deps.signal,
        pollMs: deps.pollMs,
        turn: {
          begin: (iteration, task) => {
            turn = turns.begin(iteration, task);
          },
          end: async (iteration, task) => {
            await deps.flushSpend?.();
            turns.end();
            const entry = { iteration, ...(task ? { task } : {}), usage: turn?.usage ?? ZERO_USAGE };
            ran.push(entry);
            iterations = recordIteration(iterations, entry);
            await save(spent());
          },
        },
        budgetStop: () => account.stopped,
      },
      {
        maxIterations: options.maxIterations,
        stagnationLimit: options.stagnationLimit,
        iteration: state.iteration,
        stagnantTurns: state.stagnantTurns,
      },
    );
    result = { target, end, sessionID: builder.id, sessionNote, spend: ZERO_USAGE, iterations: ran, total: ZERO_USAGE };
    if (checkBaseline.some((c) => !c.passed)) result.baseline = describeBaseline(checkBaseline);
    if (end.kind === "done") {
      result.archive = await deps.archive(target);
      const commit = await commitAll(deps.git, deps.repoRoot, commitMessage(target, end), {
        baseline,
        include: buildInclude(deps.repoRoot, source.dir, result.archive),
        guard: { snapshot: gitControl, env },
        ...(deps.commitHooks ? { hooks: { sandbox: deps.commitHooks.sandbox, env } } : {}),
        ...(deps.secrets ? { secrets: deps.secrets } : {}),
      });
      result.commit = commit.sha;
      if (commit.kept.length > 0) result.kept = commit.kept;
      if (commit.ignored.length > 0) result.ignored = commit.ignored;
    }
    await save({
      status: statusOf(end),
      note: noteOf(end),
      pid: undefined,
      ...(end.kind === "done" ? { verified: verified(end), failing: end.verdict?.failing ?? [] } : {}),
    });
    await deps.store.clearStop(target);
    if ((end.kind === "stop" && end.reason !== "stop_requested") || end.kind === "failed") notice = humanNeeded(target, noteOf(end));
    if (end.kind === "done") {
      notice = {
        kind: "spec_finished",
        title: `otto build ${target.name}: ${verified(end) ? "done and verified" : end.verdict ? `done, unverified: ${unverifiedHeadline(end.verdict)}` : UNVERIFIED}`,
        text: noteOf(end),
        facts: { commit: result.commit ?? "-" },
      };
    }
  } catch (error) {
    // Cancelled or crashed: resumable with /otto-build, from the counters saved after the last turn.
    await save({ status: "stopped", note: error instanceof Error ? error.message : String(error), pid: undefined });
    throw error;
  } finally {
    await builder.close();
    // Closing reconciles the session's calls: the spend on record is exact from here on.
    await deps.flushSpend?.();
    await save(spent());
  }
  result.spend = account.usage;
  result.total = addUsage(spentBefore, account.usage);
  // One notification per target, with what it spent (a budget stop is one of them).
  if (notice)
    await deps.notify({
      ...notice,
      text: `${notice.text}; spent ${formatUsage(result.total)}`,
      facts: { ...notice.facts, spent: formatUsage(result.total) },
    });
  return result;
}

/**
 * spec.verify once on the tree as the build found it, before the first builder turn, with the
 * loop's own runChecks (sandboxed like every check run). Empty without checks.
 */
async function runBaseline(deps: BuildDeps, target: BuildTarget): Promise<CheckResult[]> {
  if (deps.verify.length === 0) return [];
  deps.progress(`otto build ${target.name}: baseline: running the checks on the tree as the build found it`);
  const results = await deps.runChecks();
  deps.progress(`otto build ${target.name}: ${describeBaseline(results)}`);
  return results;
}

/** The target's own folders (its tasks and where it was archived): otto's state, always committed. */
function buildInclude(repoRoot: string, sourceDir: string, archive: ArchiveResult | undefined): string[] {
  const rel = (dir: string): string => `${path.relative(repoRoot, path.resolve(repoRoot, dir)).split(path.sep).join("/")}/`;
  return [rel(sourceDir), ...(archive?.archivedTo ? [rel(archive.archivedTo)] : [])];
}
