/** The comment flow: answering reviewer comments on tracked PRs (docs/pr-comments.md), and the once-per-PR workflow steps. */
export { commentsCommand, watcherHooks, type CommentsCommandInput } from "./entry.ts";
export { runCommentPass, botPolicy, type CommentFlowDeps, type CommentPassReport } from "./run-comments.ts";
export { MAX_COMMENT_FAILURES } from "./hand-off.ts";
export { selectComments, threadOf, threadKey, botKind, type BotPolicy, type CommentPlan } from "./select-comments.ts";
export { fixedIn, ownReplies, replyBody, replyMarker, stripMarkers } from "./reply-marker.ts";
export { recordComments, renderHistoryEntry, HISTORY_TITLE, type HistoryEntry } from "./comment-history.ts";
export { CommentVerdict, Decision, RESOLUTION } from "./decision.ts";
export { runWorkflowSteps } from "./workflow-steps.ts";
export { resolveTrust, type ResolveTrustInput } from "./resolve-trust.ts";
export { decideTrust, distrustText, needsLookup, TRUSTED_ASSOCIATIONS, type TrustDecision, type TrustPolicy } from "./trust.ts";
