import type { PrDocument, PrFrontmatter, PrStatus } from "./document.ts";
import { pipelineSummary } from "../pipeline.ts";
import type { PipelineStatus, PrComment, PrInfo } from "../types.ts";
import { seenOf } from "./seen.ts";
import { FIX_STALE_MS, OTTO_MARKER, unhandledComments } from "./markers.ts";

/*
 * What one poll of a PR means, as a pure function of the document and what the provider said:
 * the next frontmatter, log lines and events. The watcher's cycle does the I/O around it; the fix
 * flow records what it saw the same way before it starts.
 */

function staleFix(data: PrFrontmatter, now: string): boolean {
  if (data.status !== "fixing") return false;
  const started = data.fix_started ? Date.parse(data.fix_started) : Number.NaN;
  return Number.isFinite(started) && Date.parse(now) - started >= FIX_STALE_MS;
}

export type PrEvent = "green" | "failure" | "merged" | "closed" | "abandoned" | "new_commit" | "new_comments";

export interface Observed {
  pr: PrInfo;
  /** Absent for a PR that is no longer open. */
  pipeline?: PipelineStatus;
  comments?: PrComment[];
}

export interface RefreshPlan {
  data: PrFrontmatter;
  log: string[];
  events: PrEvent[];
  /** True when the success comment for this head SHA has not been posted yet. */
  postGreenComment: boolean;
}

const short = (sha: string): string => sha.slice(0, 7);

export function greenComment(pipeline: PipelineStatus): string {
  return `${OTTO_MARKER}\n✅ otto: all checks pass on \`${short(pipeline.headSha)}\` (${pipelineSummary(pipeline.checks)}).`;
}

function nextStatus(current: PrStatus, pipeline: PipelineStatus, newCommit: boolean): PrStatus {
  if (pipeline.state === "success") return "green";
  // The fix flow owns a PR it is fixing until the pipeline goes green or it gives up.
  if (current === "fixing") return "fixing";
  if (pipeline.state === "failure") return "failed";
  return newCommit || current === "green" || current === "failed" ? "watching" : current;
}

const failedNames = (checks: PrFrontmatter["checks"]): string =>
  checks
    .filter((c) => c.state === "failure")
    .map((c) => c.name)
    .join(", ");

/** `me`: the token's user, when a comment carries otto's marker (see isOttoComment). */
export function planRefresh(doc: PrDocument, observed: Observed, now: string, me?: string): RefreshPlan {
  const { pr, pipeline, comments } = observed;
  const before = doc.data;
  const data: PrFrontmatter = {
    ...before,
    title: pr.title,
    url: pr.url,
    repo: pr.repo,
    branch: pr.sourceBranch,
    target: pr.targetBranch,
    head_sha: pr.headSha,
    meta: pr.meta,
    last_checked: now,
    errors: 0,
    last_error: undefined,
    retry_at: undefined,
  };
  const log: string[] = [];
  const events: PrEvent[] = [];
  if (pr.state !== "open") {
    data.status = pr.state;
    if (before.status !== pr.state) {
      log.push(`${before.status} → ${pr.state}; polling stopped`);
      events.push(pr.state);
    }
    return { data, log, events, postGreenComment: false };
  }
  const newCommit = before.head_sha !== undefined && before.head_sha !== pr.headSha;
  if (newCommit) {
    log.push(`new head commit ${short(pr.headSha)}`);
    events.push("new_commit");
  }
  if (pipeline) {
    data.pipeline = pipeline.state;
    data.checks = pipeline.checks;
    // A crashed fix gives the PR back: its failure is seen again and handed to the fix flow.
    data.status = nextStatus(staleFix(before, now) ? "watching" : before.status, pipeline, newCommit);
    const failedChanged = failedNames(pipeline.checks) !== failedNames(before.checks);
    if (data.status !== before.status || (pipeline.state === "failure" && (failedChanged || newCommit))) {
      const what = pipeline.state === "failure" ? `pipeline failed: ${failedNames(pipeline.checks)}` : `pipeline ${pipeline.state}`;
      log.push(
        `${before.status === data.status ? data.status : `${before.status} → ${data.status}`}: ${what} (${pipelineSummary(pipeline.checks)})`,
      );
      if (pipeline.state === "failure") events.push("failure");
    }
    if (pipeline.state === "success" && before.green_sha !== pipeline.headSha) events.push("green");
  }
  if (comments) {
    const unseen = unhandledComments(comments, seenOf(before), me).length;
    if (unseen > before.unseen_comments) {
      log.push(`${unseen - before.unseen_comments} new reviewer comment(s), ${unseen} unhandled`);
      events.push("new_comments");
    }
    data.unseen_comments = unseen;
  }
  return { data, log, events, postGreenComment: events.includes("green") };
}
