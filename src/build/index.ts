// Build mode (/otto-build): a Ralph-style loop inside the tool call, until the tasks are done and verified.
export { buildVerb, statusVerb, stopVerb, planVerb, MAX_ITERATIONS, STAGNATION_LIMIT, type RunFlags, type VerbResult } from "./verbs.ts";
export { createBuildDeps, type BuildInput } from "./build-deps.ts";
export { runBuild, type BuildDeps, type BuildOptions, type TargetResult } from "./run-build.ts";
export { statusOf, noteOf } from "./loop-end.ts";
export { runLoop, type LoopDeps, type LoopEnd, type LoopOptions } from "./run-loop.ts";
export { blockingChecks, buildVerdict, judgeChecks, keptResult, preExistingLines, unverifiedHeadline, KEPT_OUTPUT } from "./verdict.ts";
export { decide, isStagnant, nextStagnant, type Decision, type Observation, type Reminder } from "./decide.ts";
export { BuildStore, BuildState, BuildTarget, StoredCheck, FailingCheck, stateKey, buildDir, crashed } from "./state.ts";
export { parseCheckboxTasks, setCheckboxTask, type CheckboxTask } from "./openspec-tasks.ts";
export { taskSource, viewSpecTasks, viewCheckboxTasks, type TaskSource, type TaskView } from "./task-source.ts";
export { buildOrder } from "./order.ts";
export { resolveTargets, incompleteSpecs, targetFlag, type TargetFlags } from "./targets.ts";
export { archiveTarget, archiveName, type ArchiveResult } from "./archive.ts";
export { specListJson, taskListJson, workState, type WorkState } from "./views.ts";
export { claimsProgress, claimsVerified, VERIFIED } from "./prompts.ts";
export type { Builder } from "./turn.ts";
