/** src/review: the multi-model review pipeline (see docs/sessions.md). */
export {
  reviewArtifact,
  DEFAULT_REVIEW_AGENTS,
  type ReviewAgents,
  type ReviewOptions,
  type ReviewPass,
  type ReviewResult,
} from "./pipeline.ts";
export { Critique, Finding, Severity, isApproval, summarizeCritique, formatCritique } from "./critique.ts";
export { changedSubstantially, lineChangeRatio, normaliseLines, removedLines, SUBSTANTIAL_CHANGE } from "./changed.ts";
export { generateChecked, inChild, type Acceptance, type CheckedOptions, type CheckedReply, type PassDialog } from "./generate.ts";
