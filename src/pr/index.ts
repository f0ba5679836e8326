/** PR tracking: backends (GitHub, Azure DevOps) behind one interface, the PR store, the watcher. */
export type { BackendDeps, CachedResponse, CallOptions, IdContext, PrBackend, ResponseCache } from "./backend.ts";
export { createRegistry, locatePr, type BackendRegistry, type LocateInput } from "./context/registry.ts";
export {
  CheckState,
  CommentResolution,
  PrLocator,
  ProviderName,
  WorkflowAction,
  authorKey,
  type AuthorAccess,
  type Check,
  type CommentAuthor,
  type InlineComment,
  type PipelineStatus,
  type PrComment,
  type PrInfo,
  type PrReview,
  type ReviewPost,
  type PrState,
  type WorkflowResult,
} from "./types.ts";
export { pipelineSummary, overallState } from "./pipeline.ts";
export { FINAL_STATUSES, PrFrontmatter, PrStatus, parsePrDocument, renderPrDocument, type PrDocument } from "./store/document.ts";
export { createPrStore, documentKey, type PrStore } from "./store/store.ts";
export { findPr } from "./store/find.ts";
export { createPrContext, prStoreDir, type PrContext, type PrRuntime } from "./context/context.ts";
export { addPr, trackPr } from "./commands/add.ts";
export { createPullRequest, currentBranchPr, type CreatePrInput, type CreatePrResult } from "./create/create-pr.ts";
export { listPrs, prLog, prStatus, removePr } from "./commands/show.ts";
export { listFlakes, verdictSavings } from "./commands/flakes.ts";
export { runCycle, type CycleDeps, type CycleReport, type PrResult } from "./watch/cycle.ts";
export type { CommentsContext, CycleHooks, FailureContext, PolledContext } from "./context/hooks.ts";
export { planRefresh, type PrEvent } from "./store/refresh.ts";
export { OTTO_MARKER, unhandledComments } from "./store/markers.ts";
export { createWatcher, type Watcher } from "./watch/watcher.ts";
export { cronFor, systemClock, type Clock, type Scheduled } from "./watch/schedule.ts";
export { watchControllerFor, createWatchController, type WatchController } from "./watch/controller.ts";
export { WATCH_ENV } from "./watch/detach.ts";
export { hostKind } from "./watch/host.ts";
export { originUrl } from "./remote.ts";
export { commentsCommand, resolveTrust, type TrustDecision } from "./comments/index.ts";
// Rules learning sits on the stack's floors (it reads PRs through the comment flow; the watcher runs it).
export { learnCommand, type LearnCommandInput } from "../rules/learn/index.ts";
export { fixCommand, fixOnFailure } from "./fix/index.ts";
export { sanitizeForPost, DIFF_PLACEHOLDER } from "./sanitize.ts";
export { openPrTree, snapshotPrTree, deferredText, type PrTree, type PrTreeInput } from "./pr-tree.ts";
export { ciInit, readCiSetup } from "./ci/init/index.ts";
export {
  runCi,
  inertLog,
  readCiEvent,
  githubEvent,
  readAzureEvent,
  commentCommand,
  CiState,
  STATE_MARKER,
  findState,
  parseState,
  renderState,
  AZURE_VARS,
  GITHUB_VARS,
  type CiEvent,
  type CiResult,
} from "./ci/index.ts";
export { prRules, prChangedFiles, prWorkRules, type PrWorkRulesInput } from "./rules.ts";
