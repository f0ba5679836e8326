import type { SandboxMode } from "../sandbox/index.ts";
import type { Repo } from "../config/index.ts";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { commitAll, snapshotGitControl, snapshotTree, type CheckResult, type GitRun } from "../workspace/index.ts";
import type { NotifyEvent } from "../notify/index.ts";
import type { ArchiveResult } from "./archive.ts";
import { lockTarget } from "./build-lock.ts";
import { treeFingerprint } from "./fingerprint.ts";
import { runLoop, type LoopEnd } from "./run-loop.ts";
import type { BuildState, BuildStore, BuildTarget } from "./state.ts";
import { targetFlag } from "./targets.ts";
import { taskSource } from "./task-source.ts";
import type { Builder } from "./turn.ts";

/** Everything a build touches; build-deps.ts wires the real ones, tests pass fakes. */
export interface BuildDeps {
  repoRoot: string;
  /** The tracked repos (config.repos): where a build started on the default branch commits. */
  repos?: readonly Repo[];
  store: BuildStore;
  /**
   * Opens the builder child session for a target (kept after the loop, for the user): the session
   * `resume` when it still exists (a resumed loop keeps its conversation), else a new one.
   */
  openBuilder(target: BuildTarget, resume?: string): Promise<Builder & { close(): Promise<void> }>;
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
  /** `git.hooks: "run"`: the final commit runs the repository's hooks, in the sandbox this mode says. */
  commitHooks?: { sandbox: SandboxMode };
  /** The known secrets: a file holding one is not committed. */
  secrets?: readonly string[];
}

export interface BuildOptions {
  maxIterations: number;
  stagnationLimit: number;
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
}

/** Builds the targets in order; the next one starts only when the previous one is done. */
export async function runBuild(deps: BuildDeps, targets: readonly BuildTarget[], options: BuildOptions): Promise<TargetResult[]> {
  const results: TargetResult[] = [];
  for (const target of targets) {
    const result = await buildOne(deps, target, options);
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

async function buildOne(deps: BuildDeps, target: BuildTarget, options: BuildOptions): Promise<TargetResult> {
  const release = await lockTarget(deps.store.lockPath(target), target.name, { holder: () => deps.store.read(target), flag: targetFlag(target) });
  try {
    return await buildLocked(deps, target, options);
  } finally {
    await release();
  }
}

async function buildLocked(deps: BuildDeps, target: BuildTarget, options: BuildOptions): Promise<TargetResult> {
  const previous = await deps.store.read(target);
  await deps.store.clearStop(target);
  const source = taskSource(deps.repoRoot, target);
  // A target without a tasks file fails here, before a session is opened for nothing.
  await source.read();
  const resume = resumable(previous) ? previous : undefined;
  // Taken before the first turn and kept with the loop's state, so a resumed loop commits its own
  // earlier work too, and never the user's uncommitted edits.
  const baseline = resume?.baseline ?? (await snapshotTree(deps.git, deps.repoRoot));
  // Git's config and hooks before this loop's turns: the final commit runs hooks with otto's environment.
  const env = deps.env ?? process.env;
  const gitControl = await snapshotGitControl(deps.repoRoot, { env });
  const builder = await deps.openBuilder(target, resume?.sessionID);
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
    pid: deps.pid,
    updatedAt: deps.now().toISOString(),
  };
  const save = async (patch: Partial<BuildState>): Promise<void> => {
    state = { ...state, ...patch, updatedAt: deps.now().toISOString() };
    await deps.store.write(state);
  };
  await save({});
  try {
    const end = await runLoop(
      {
        repoRoot: deps.repoRoot,
        source,
        builder,
        fingerprint: () => treeFingerprint(deps.git, deps.repoRoot),
        verify: deps.verify,
        runChecks: deps.runChecks,
        stopRequested: () => deps.store.stopRequested(target),
        save: ({ done, total, ...rest }) => save({ ...rest, progress: { done, total } }),
        progress: deps.progress,
        signal: deps.signal,
        pollMs: deps.pollMs,
      },
      { maxIterations: options.maxIterations, stagnationLimit: options.stagnationLimit, iteration: state.iteration, stagnantTurns: state.stagnantTurns },
    );
    const result: TargetResult = { target, end, sessionID: builder.id, sessionNote };
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
    await save({ status: statusOf(end), note: noteOf(end), pid: undefined, ...(end.kind === "done" ? { verified: verified(end) } : {}) });
    await deps.store.clearStop(target);
    if (end.kind === "stop" && end.reason !== "stop_requested") await deps.notify(humanNeeded(target, noteOf(end)));
    if (end.kind === "failed") await deps.notify(humanNeeded(target, noteOf(end)));
    if (end.kind === "done") {
      await deps.notify({ kind: "spec_finished", title: `otto build ${target.name}: ${verified(end) ? "done and verified" : UNVERIFIED}`, text: noteOf(end), facts: { commit: result.commit ?? "-" } });
    }
    return result;
  } catch (error) {
    // Cancelled or crashed: resumable with /otto-build, from the counters saved after the last turn.
    await save({ status: "stopped", note: error instanceof Error ? error.message : String(error), pid: undefined });
    throw error;
  } finally {
    await builder.close();
  }
}

export function statusOf(end: LoopEnd): BuildState["status"] {
  if (end.kind === "done") return "done";
  if (end.kind === "pause") return "paused";
  if (end.kind === "failed") return "failed";
  return end.reason === "stop_requested" ? "stopped" : end.reason === "stagnation" ? "stagnated" : "max_iterations";
}

/** What a loop that ended done without any check to run says instead of "verified". */
export const UNVERIFIED = "done, unverified: no checks found";

/** Verified means checks ran and passed; a builder's VERIFIED with nothing to run proves nothing. */
export function verified(end: Extract<LoopEnd, { kind: "done" }>): boolean {
  return end.checks.length > 0 && end.checks.every((c) => c.passed);
}

export function noteOf(end: LoopEnd): string {
  switch (end.kind) {
    case "done":
      return verified(end) ? `done and verified in ${end.iterations} turn(s)` : `${UNVERIFIED}, after ${end.iterations} turn(s) (set spec.verify to have otto run some)`;
    case "pause":
      return "paused: the builder session was interrupted (a message or an abort from someone else)";
    case "failed":
      return `the builder gave up: ${end.reason}`;
    case "stop":
      return end.reason === "stop_requested"
        ? "stopped on request"
        : end.reason === "stagnation"
          ? `stopped: nothing changed (no task status, no file) for several turns in a row, after ${end.iterations} turn(s)`
          : `stopped: max iterations (${end.iterations}) reached`;
  }
}

function commitMessage(target: BuildTarget, end: Extract<LoopEnd, { kind: "done" }>): string {
  const checks = end.checks.length ? end.checks.map((c) => `${c.command}: passed`).join(", ") : "none, no checks found (unverified)";
  return `feat(${target.name}): implementation complete\n\nBuilt by /otto-build in ${end.iterations} turn(s); verify: ${checks}.`;
}

function humanNeeded(target: BuildTarget, note: string): NotifyEvent {
  return { kind: "human_needed", title: `otto build ${target.name}: ${note.split(":")[0] ?? note}`, text: note, facts: { target: `${target.kind} ${target.name}` } };
}

/** The target's own folders (its tasks and where it was archived): otto's state, always committed. */
function buildInclude(repoRoot: string, sourceDir: string, archive: ArchiveResult | undefined): string[] {
  const rel = (dir: string): string => `${path.relative(repoRoot, path.resolve(repoRoot, dir)).split(path.sep).join("/")}/`;
  return [rel(sourceDir), ...(archive?.archivedTo ? [rel(archive.archivedTo)] : [])];
}
