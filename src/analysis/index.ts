export { analyzeCodebase, DEFAULT_ANALYZE_OPTIONS } from "./analyze-codebase.ts";
export { renderCodebaseSummary, MAX_RENDERED_LINES } from "./render-summary.ts";
export type {
  AnalyzeOptions,
  Archetype,
  ArchetypeKind,
  ArchetypeMatch,
  CodebaseSummary,
  Conventions,
  Dependency,
  Ecosystem,
  Finding,
  GitResult,
  GitRunner,
  Layout,
  Manifest,
  ManifestKind,
} from "./types.ts";
export { codebaseSummaryFor } from "./summary-for.ts";
export { detectChecks, makeTargets, type CheckDetection, type CheckFacts, type DetectedCheck } from "./detect-checks.ts";
export { judgeAcceptance, type AcceptanceContext } from "./acceptance.ts";
export {
  readProjectChecks,
  readProjectFacts,
  resolveChecks,
  checkCommands,
  describeCheck,
  describeResolvedChecks,
  type ChecksKey,
  type ResolvedCheck,
  type ResolvedChecks,
} from "./resolve-checks.ts";
