/** The PR fix flow (docs/pr-fix.md): red CI on a tracked PR → logs → summary → re-run or fix → push. */
export { fixOnFailure, flakeProbeOnGreen, fixCommand, configuredModels, renderOutcome, type FixCommandInput } from "./entry.ts";
export { runFix, type FixDeps, type FixInput, type FixModels, type FixOutcome, type FixResult } from "./run-fix.ts";
export { trimLog, capChars, keptRanges, cleanLine } from "./trim-log.ts";
export { parseVerdict, parseCauseFiles, isInfrastructure, fixSummary, type Verdict } from "./verdict.ts";
export {
  planStart,
  planInfrastructure,
  nextStep,
  renderEntry,
  appendHistory,
  giveUpComment,
  commitMessage,
  type Trigger,
} from "./decide.ts";
export type { SessionContext } from "./sessions.ts";
