import { OttoError, isOttoError, redact } from "../../core/index.ts";
import { currentAccount, withAccount, type Account } from "../../cost/index.ts";
import { resolveTrust } from "../../pr/index.ts";
import type { Runtime } from "../../runtime.ts";
import type { GitControlSnapshot } from "../../workspace/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { formatModel, type ModelRef } from "../../session/index.ts";
import { reviewStateOf } from "./consensus.ts";
import { toFinding } from "./findings.ts";
import type { LoopSetup } from "./preflight.ts";
import type { ReviewerOutcome } from "./report.ts";
import { CommentsReply, ReviewerReply, type Finding, type ReviewState } from "./schemas.ts";
import { openThreads, threadFindings } from "./threads.ts";
import { prRulesPrompt } from "../rules.ts";

export interface RunContext {
  runtime: Runtime;
  setup: LoopSetup;
  sessionID?: string;
  signal?: AbortSignal;
  /** One model turn of a reviewer or the analyzer. */
  reviewTimeoutMs: number;
  /** The tree's git configuration and hooks before the loop's first session: the push refuses if they changed. */
  gitControl?: GitControlSnapshot;
  /** The loop's account (labels, budget): each round, reviewer, analyzer and fix is charged to a child of it. */
  account?: Account;
  /** Where the team rules' applied counts go: the repository's root (docs/rules.md). */
  rulesKey: string;
}

export interface ReviewRound {
  reviewers: ReviewerOutcome[];
  findings: Finding[];
  threads: Finding[];
  reviewState: ReviewState;
}

/** Errors that end the loop at once instead of counting as one failed reviewer (a reached budget too: no reviewer can answer). */
const HARD_STOPS = new Set(["model_mismatch", "agent_mismatch", "session_aborted", "budget_exceeded"]);

/** Runs `work` charged to a child account of the current one (the round's), when there is one. */
function charged<T>(name: string, work: () => Promise<T>): Promise<T> {
  const parent = currentAccount();
  return parent ? withAccount(parent.child(name), work) : work();
}

export function isHardStop(error: unknown): error is OttoError {
  return isOttoError(error) && HARD_STOPS.has(error.code);
}

function describe(error: unknown): string {
  if (isOttoError(error)) return redact(`${error.code}: ${error.message}`);
  return redact(error instanceof Error ? error.message : String(error));
}

const reviewerName = (i: number): string => `reviewer-${i + 1}`;

function child(ctx: RunContext, model: ModelRef, title: string) {
  return {
    ...(ctx.sessionID ? { parentID: ctx.sessionID } : {}),
    directory: ctx.setup.dir,
    agent: "otto-reviewer",
    model,
    title,
    timeoutMs: ctx.reviewTimeoutMs,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
}

async function runReviewer(
  ctx: RunContext,
  round: number,
  i: number,
  model: ModelRef,
): Promise<{ outcome: ReviewerOutcome; findings: Finding[] }> {
  const { pr, targetRef, changedFiles } = ctx.setup;
  const name = reviewerName(i);
  const prompt = renderPrompt(
    "pr-loop-reviewer",
    {
      pr_title: pr.title,
      pr_description: pr.description ?? "",
      target_branch: targetRef,
      reviewer: name,
      round,
      pr_url: pr.url,
      ...(changedFiles.length > 0 ? { changed_files: changedFiles } : {}),
      ...(ctx.setup.stripped?.diff ? { opencode_config_diff: ctx.setup.stripped.diff } : {}),
    },
    { env: ctx.runtime.env },
  );
  const rules = await prRulesPrompt(ctx.setup.rules, ctx.rulesKey, changedFiles, "review", ctx.runtime.env);
  const reply = await ctx.runtime.sessions.runChildJson(
    { ...child(ctx, model, `otto: PR #${pr.number} review loop, round ${round}, ${name}`), ...(rules.text ? { system: rules.text } : {}) },
    prompt,
    ReviewerReply,
    { retries: 1 },
  );
  const findings = reply.value.findings.map((f) => toFinding(f, name, [...rules.repoIds, ...rules.userIds]));
  return {
    outcome: {
      name,
      model: formatModel(model),
      ok: true,
      findings: findings.length,
      conclusion: reply.value.conclusion,
      report: reply.value.fullReport,
    },
    findings,
  };
}

async function runAnalyzer(
  ctx: RunContext,
  threads: ReturnType<typeof openThreads>,
  state: ReviewState,
): Promise<CommentsReply | undefined> {
  if (threads.length === 0) return undefined;
  const { pr } = ctx.setup;
  const prompt = renderPrompt(
    "pr-loop-comments",
    { pr_title: pr.title, threads: JSON.stringify(threads, null, 2), review_state: JSON.stringify(state, null, 2), pr_url: pr.url },
    { env: ctx.runtime.env },
  );
  const reply = await ctx.runtime.sessions.runChildJson(
    child(ctx, ctx.setup.analyzer, `otto: PR #${pr.number} review loop, comments`),
    prompt,
    CommentsReply,
    { retries: 1 },
  );
  return reply.value;
}

/**
 * One review round: the forge's reviews and comments, then every reviewer and the comments
 * analyzer in parallel. A failed reviewer is recorded (partial review); a model or agent
 * mismatch or a cancellation anywhere, or a failed analyzer, throws (the loop stops).
 */
export async function runReviewRound(ctx: RunContext, round: number): Promise<ReviewRound> {
  const { backend, pr } = ctx.setup;
  const [reviews, comments] = await Promise.all([backend.getReviews(pr), backend.getComments(pr)]);
  const reviewState = reviewStateOf(reviews);
  const open = comments.filter((c) => !c.resolved);
  const trust = await resolveTrust({
    backend,
    pr,
    comments: open,
    policy: ctx.setup.config.pr.trusted_authors,
    secrets: ctx.setup.secrets,
    log: (level, message, extra) => ctx.runtime.log.log(level, message, extra),
  });
  const threads = openThreads(comments, (c) => trust.get(c.id)?.trusted === true);
  const ignored = open.filter((c) => trust.get(c.id)?.trusted !== true).map((c) => c.author);
  if (ignored.length > 0)
    ctx.runtime.log.log(
      "info",
      `pr-review loop: ${ignored.length} open comment(s) by people otto does not act for left out (${[...new Set(ignored)].join(", ")})`,
    );
  const [analyzed, ...settled] = await Promise.allSettled([
    charged("analyzer", () => runAnalyzer(ctx, threads, reviewState)),
    ...ctx.setup.reviewers.map((m, i) => charged(`${reviewerName(i)} ${formatModel(m)}`, () => runReviewer(ctx, round, i, m))),
  ]);
  const hard = [analyzed, ...settled].find((s) => s?.status === "rejected" && isHardStop(s.reason));
  if (hard?.status === "rejected") throw hard.reason;
  if (analyzed?.status === "rejected") {
    throw new OttoError(
      "loop_analyzer_failed",
      `The comments analyzer (${formatModel(ctx.setup.analyzer)}) failed: ${describe(analyzed.reason)}`,
      "Check the model with /otto-config models, then run the command again.",
    );
  }
  const reviewers: ReviewerOutcome[] = [];
  const findings: Finding[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") {
      reviewers.push(s.value.outcome);
      findings.push(...s.value.findings);
    } else {
      reviewers.push({
        name: reviewerName(i),
        model: formatModel(ctx.setup.reviewers[i] as ModelRef),
        ok: false,
        error: describe(s.reason),
        findings: 0,
      });
    }
  });
  const reply = analyzed?.status === "fulfilled" ? analyzed.value : undefined;
  return { reviewers, findings, threads: threadFindings(threads, reply), reviewState };
}
