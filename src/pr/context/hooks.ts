import type { Notify } from "../../notify/index.ts";
import type { PrBackend } from "../backend.ts";
import type { PrDocument } from "../store/document.ts";
import type { PipelineStatus, PrComment, PrInfo } from "../types.ts";

/*
 * The hooks of the watcher's cycle (src/pr/watch/cycle.ts): what the cycle hands the fix flow,
 * the comment flow and the provider's workflow steps. They live below those flows so the flows
 * implement them without importing the watcher.
 */

export interface FailureContext {
  doc: PrDocument;
  pr: PrInfo;
  pipeline: PipelineStatus;
  backend: PrBackend;
  /** This PR's notifier for this cycle (at most MAX_NOTIFICATIONS_PER_PR_CYCLE); the flows notify through it. */
  notify?: Notify;
}

export interface CommentsContext {
  doc: PrDocument;
  pr: PrInfo;
  /** Reviewer comments not handled yet (not in seen_comment_ids, unresolved, not otto's). */
  comments: PrComment[];
  backend: PrBackend;
  /** This PR's notifier for this cycle (at most MAX_NOTIFICATIONS_PER_PR_CYCLE); the flows notify through it. */
  notify?: Notify;
}

export interface PolledContext {
  doc: PrDocument;
  pr: PrInfo;
  backend: PrBackend;
}

/** The hook part of the cycle's deps (CycleDeps). */
export interface CycleHooks {
  /**
   * The fix flow's entry point: called after a pipeline failure was recorded. Until it exists
   * the failure stays recorded (status failed, failed checks in the document).
   */
  onFailure?(context: FailureContext): Promise<void>;
  /** The comment flow's entry point: called each poll while a PR has unhandled reviewer comments. */
  onComments?(context: CommentsContext): Promise<void>;
  /** Provider workflow steps (Azure DevOps auto-complete, work item): called after each poll of an open PR. */
  onPolled?(context: PolledContext): Promise<void>;
  /** A PR went green: the fix flow settles a re-run it asked for to tell a flake (src/pr/fix/probe-green.ts). */
  onGreen?(context: FailureContext): Promise<void>;
}
