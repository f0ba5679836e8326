import pLimit from "p-limit";
import { formatError, redact } from "../../core/index.ts";
import type { Notify } from "../../notify/index.ts";
import type { PrBackend } from "../backend.ts";
import type { BackendRegistry } from "../registry.ts";
import { logLine, type PrDocument, type PrStatus } from "../store/document.ts";
import type { PrStore } from "../store/store.ts";
import { pipelineSummary } from "../pipeline.ts";
import type { PipelineStatus, PrComment, PrInfo } from "../types.ts";
import { OTTO_MARKER, greenComment, planError, planRefresh, shouldPoll, unhandledComments, type Observed, type PrEvent } from "./plan.ts";

/*
 * One watcher cycle: every tracked PR is refreshed, in parallel up to a limit. One PR's error
 * is recorded on that PR (with a backoff) and never stops the others. The fix and comment flows
 * plug in through onFailure and onComments; their errors are theirs, not the poll's.
 */

export interface FailureContext {
  doc: PrDocument;
  pr: PrInfo;
  pipeline: PipelineStatus;
  backend: PrBackend;
}

export interface CommentsContext {
  doc: PrDocument;
  pr: PrInfo;
  /** Reviewer comments not handled yet (not in seen_comment_ids, unresolved, not otto's). */
  comments: PrComment[];
  backend: PrBackend;
}

export interface PolledContext {
  doc: PrDocument;
  pr: PrInfo;
  backend: PrBackend;
}

export interface CycleDeps {
  store: PrStore;
  registry: BackendRegistry;
  notify: Notify;
  now(): Date;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
  /** How often cycles run; the backoff of a failing PR is counted in intervals. */
  intervalMs: number;
  /** PRs polled at the same time. */
  concurrency: number;
  /** Ignore per-PR backoff (a cycle the user asked for). */
  force?: boolean;
  /** Credentials of the config, redacted from every error otto records or logs. */
  secrets?: readonly string[];
  /**
   * The fix flow's entry point: called after a pipeline failure was recorded. Until it exists
   * the failure stays recorded (status failed, failed checks in the document).
   */
  onFailure?(context: FailureContext): Promise<void>;
  /** The comment flow's entry point: called each poll while a PR has unhandled reviewer comments. */
  onComments?(context: CommentsContext): Promise<void>;
  /** Provider workflow steps (Azure DevOps auto-complete, work item): called after each poll of an open PR. */
  onPolled?(context: PolledContext): Promise<void>;
}

export type Outcome = "updated" | "unchanged" | "final" | "backoff" | "error" | "removed";

export interface PrResult {
  key: string;
  outcome: Outcome;
  status: PrStatus;
  summary: string;
  events: PrEvent[];
  error?: string;
}

export interface CycleReport {
  started: string;
  finished: string;
  results: PrResult[];
}

/**
 * New reviewer comments. Only a comment carrying otto's marker needs the token's user to tell
 * otto's own from a reviewer who pasted it; that lookup happens only then, so idle polls stay free.
 */
async function reviewerComments(backend: PrBackend, observed: Observed, seen: readonly string[], deps: CycleDeps): Promise<PrComment[]> {
  const unhandled = unhandledComments(observed.comments ?? [], seen);
  const marked = (observed.comments ?? []).some((c) => !c.resolved && !seen.includes(c.id) && c.body.includes(OTTO_MARKER));
  if (!marked) return unhandled;
  const me = await backend.currentUser(observed.pr).catch((error: unknown) => {
    deps.log("warn", `could not read the token's user for ${observed.pr.url}; otto's marker alone decides`, { error: redact(formatError(error), deps.secrets) });
    return undefined;
  });
  return me === undefined ? unhandled : unhandledComments(observed.comments ?? [], seen, me);
}

async function observe(backend: PrBackend, doc: PrDocument, deps: CycleDeps): Promise<Observed> {
  const cache = await deps.store.loadCache(doc.key);
  const options = { cache };
  const pr = await backend.getPr({ provider: doc.data.provider, number: Number(doc.data.id), repo: doc.data.repo }, options);
  if (pr.state !== "open") return { pr };
  const [pipeline, comments] = await Promise.all([backend.getPipelineStatus(pr, options), backend.getComments(pr, options)]);
  // Saved after every call succeeded: a half-failed poll must not leave ETags for data never applied.
  await cache.save();
  return { pr, pipeline, comments };
}

async function refresh(doc: PrDocument, deps: CycleDeps): Promise<PrResult> {
  const result = (outcome: Outcome, d: PrDocument, events: PrEvent[] = [], error?: string): PrResult => ({
    key: d.key,
    outcome,
    status: d.data.status,
    summary: pipelineSummary(d.data.checks),
    events,
    ...(error ? { error } : {}),
  });
  const now = deps.now();
  const decision = shouldPoll(doc, now, deps.force === true);
  if (decision !== "poll") return result(decision, doc);
  const backend = deps.registry.get(doc.data.provider);
  try {
    const observed = await observe(backend, doc, deps);
    const first = planRefresh(doc, observed, now.toISOString());
    let posted = false;
    if (first.postGreenComment && observed.pipeline) {
      await backend.postComment(observed.pr, greenComment(observed.pipeline));
      posted = true;
    }
    let events: PrEvent[] = [];
    const written = await deps.store.update(doc.key, (current) => {
      // Planned again on the document as it is now: a command may have changed it meanwhile.
      const plan = planRefresh(current, observed, now.toISOString());
      events = plan.events;
      const data = posted && observed.pipeline ? { ...plan.data, green_sha: observed.pipeline.headSha } : plan.data;
      return { ...current, data, log: [...current.log, ...plan.log.map((l) => logLine(now.toISOString(), l))] };
    });
    if (!written) return result("removed", doc);
    if (events.includes("green") && posted) await notifyGreen(deps, written);
    if (events.includes("failure") && deps.onFailure && observed.pipeline) {
      // The fix flow's own errors are its business; the poll itself succeeded.
      await deps.onFailure({ doc: written, pr: observed.pr, pipeline: observed.pipeline, backend }).catch((error: unknown) => {
        deps.log("warn", `fix flow for ${doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
      });
    }
    if (deps.onPolled && observed.pr.state === "open") {
      await deps.onPolled({ doc: written, pr: observed.pr, backend }).catch((error: unknown) => {
        deps.log("warn", `workflow steps for ${doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
      });
    }
    const unhandled = await reviewerComments(backend, observed, written.data.seen_comment_ids, deps);
    if (unhandled.length > 0 && deps.onComments) {
      await deps.onComments({ doc: written, pr: observed.pr, comments: unhandled, backend }).catch((error: unknown) => {
        deps.log("warn", `comment flow for ${doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
      });
    }
    return result(events.length > 0 ? "updated" : "unchanged", written, events);
  } catch (error) {
    const message = redact(formatError(error).replace(/^Error: /, ""), deps.secrets);
    deps.log("warn", `poll of ${doc.key} failed`, { error: message });
    const written = await deps.store
      .update(doc.key, (current) => {
        const plan = planError(current, message, now, deps.intervalMs);
        return { ...current, data: plan.data, log: [...current.log, ...plan.log.map((l) => logLine(now.toISOString(), l))] };
      })
      .catch(() => undefined);
    return result("error", written ?? doc, [], message);
  }
}

async function notifyGreen(deps: CycleDeps, doc: PrDocument): Promise<void> {
  const report = await deps.notify({
    kind: "pr_green",
    title: `PR #${doc.data.id} is green: ${doc.data.title}`,
    text: `All checks pass on ${doc.data.branch} (${pipelineSummary(doc.data.checks)}).`,
    url: doc.data.url,
    facts: { Repository: doc.data.repo, Branch: `${doc.data.branch} → ${doc.data.target}` },
  });
  for (const failure of report.failed) deps.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
}

export async function runCycle(deps: CycleDeps): Promise<CycleReport> {
  const started = deps.now().toISOString();
  const { docs, broken } = await deps.store.list();
  for (const b of broken) deps.log("warn", `unreadable PR document ${b.file}`, { error: b.error });
  const limit = pLimit(Math.max(1, deps.concurrency));
  const results = await Promise.all(docs.map((doc) => limit(() => refresh(doc, deps))));
  return { started, finished: deps.now().toISOString(), results };
}
