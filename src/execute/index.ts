// The execution engine's public entry (/otto-spec execute, otto_spec_execute, /otto-spec task run).
export { executeVerb, taskRunVerb } from "./verbs.ts";
export { createExecuteDeps, executeSettings, type ExecuteInput } from "./deps.ts";
export { executeSpec, phaseSummaries, type ExecuteResult } from "./execute-spec.ts";
export { runOneTask } from "./task-run.ts";
export type { ExecuteDeps, ExecuteSettings, TaskResult, StepRecord, ToastVariant } from "./types.ts";
export { TaskStore, parseTaskFile } from "./task-store.ts";
export { startChanges, phasesToRun, blockedInPhase, runnableInPhase, taskFailedReason, pickTask, type StatusChange } from "./plan.ts";
export { parseTrailers, renderCommitMessage, trailerLine, summaryOf, type OttoTrailer, type VerifyState } from "./commit-message.ts";
export { ottoCommits, committedPhases, type OttoCommit } from "./git.ts";
export { phaseTitle, renderReport, type RunReport, type PhaseReport, type PhaseCounts } from "./progress.ts";
export { renderAttempt, writeAttempt, formatDuration, type AttemptRecord } from "./history.ts";
export { lockRun } from "./run-lock.ts";
export { RunSessions, runSessionsFile } from "./run-sessions.ts";
export { Background } from "./pass.ts";
export { appendHarvest, Harvest } from "./harvest.ts";
