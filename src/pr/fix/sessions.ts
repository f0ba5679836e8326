import { z } from "zod";
import { renderPrompt } from "../../prompts/index.ts";
import { extractDocument, taskFailedReason, type ModelRef } from "../../session/index.ts";
import type { ConflictSessionContext } from "../resolve-conflicts.ts";
import type { Check, PrInfo } from "../types.ts";

/*
 * The fix flow's four kinds of child session, each fresh and deleted after its reply was read:
 * phase 1 distils the logs (read-only reviewer), phase 2 fixes the code (executor), the secondary
 * model reviews the fix before the push (read-only reviewer), and a rebase that stopped on
 * conflicts gets one resolution session (executor, src/pr/resolve-conflicts.ts).
 */

/** Same shape as the conflict-resolution session's: every fix-flow session runs in the PR's worktree. */
export type SessionContext = ConflictSessionContext;

const base = (ctx: SessionContext, agent: string, model: ModelRef, title: string) => ({
  directory: ctx.dir,
  agent,
  model,
  title,
  timeoutMs: ctx.timeoutMs,
  ...(ctx.parentID ? { parentID: ctx.parentID } : {}),
  ...(ctx.signal ? { signal: ctx.signal } : {}),
  ...(ctx.system ? { system: ctx.system } : {}),
});

export function describeChecks(checks: readonly Check[]): string {
  return checks
    .filter((c) => c.state === "failure")
    .map((c) => `- ${c.name}: ${c.state}${c.detail ? ` (${c.detail})` : ""}${c.url ? ` ${c.url}` : ""}`)
    .join("\n");
}

/** Phase 1: the failure summary (the document between BEGIN_DOCUMENT and END_DOCUMENT). */
export async function analyseFailure(
  ctx: SessionContext,
  model: ModelRef,
  input: { pr: PrInfo; checks: readonly Check[]; files: readonly string[]; missing: readonly string[]; screening?: string },
): Promise<string> {
  const failed = [describeChecks(input.checks), ...input.missing.map((m) => `- (no log) ${m}`)].filter(Boolean).join("\n");
  const prompt = renderPrompt(
    "pr-failure-analysis",
    {
      pr_title: input.pr.title,
      failed_checks: failed || "(the provider named no failed check)",
      log_files:
        input.files.length > 0 ? [...input.files] : "(no logs could be downloaded; work from the failed checks above and the repository)",
      target_branch: input.pr.targetBranch,
      ...(input.pr.description ? { pr_description: input.pr.description } : {}),
      ...(input.screening ? { screening: input.screening } : {}),
    },
    { env: ctx.env },
  );
  const reply = await ctx.sessions.runChild(
    base(ctx, "otto-reviewer", model, `otto: analyse the failed pipeline of PR #${input.pr.number}`),
    prompt,
  );
  return extractDocument(reply.text);
}

export interface FixReply {
  text: string;
  /** The session's TASK_FAILED reason, if it gave up. */
  failed?: string | undefined;
}

/** Phase 2: the executor fixes the code in the worktree (otto commits and pushes). */
export async function fixFailure(
  ctx: SessionContext,
  model: ModelRef,
  input: { pr: PrInfo; summary: string; previous?: string | undefined; checkCommands: readonly string[]; attempt: number },
): Promise<FixReply> {
  const prompt = renderPrompt(
    "pr-fix",
    {
      pr_title: input.pr.title,
      failure_summary: input.summary,
      target_branch: input.pr.targetBranch,
      ...(input.pr.description ? { pr_description: input.pr.description } : {}),
      ...(input.previous ? { previous_attempts: input.previous } : {}),
      ...(input.checkCommands.length > 0 ? { check_commands: input.checkCommands.join("\n") } : {}),
    },
    { env: ctx.env },
  );
  const reply = await ctx.sessions.runChild(
    base(ctx, "otto-executor", model, `otto: fix the pipeline of PR #${input.pr.number} (attempt ${input.attempt})`),
    prompt,
  );
  return { text: reply.text, failed: taskFailedReason(reply.text) };
}

/** The secondary model's judgment of a fix, before otto pushes it. */
export const FixReview = z.object({
  verdict: z.enum(["APPROVE", "REJECT"]),
  reasons: z.array(z.string()),
});
export type FixReview = z.infer<typeof FixReview>;

/** The review before the push: a clean read-only session sees the failure summary and the uncommitted fix. */
export async function reviewFix(
  ctx: SessionContext,
  model: ModelRef,
  input: { pr: PrInfo; summary: string; diff: string; checkCommands: readonly string[]; pass: number; flagged?: string | undefined },
): Promise<FixReview> {
  const prompt = renderPrompt(
    "pr-fix-review",
    {
      pr_title: input.pr.title,
      failure_summary: input.summary,
      fix_diff: input.diff || "(no diff: the fix changed no tracked or new file)",
      ...(input.flagged ? { flagged_changes: input.flagged } : {}),
      ...(input.pr.description ? { pr_description: input.pr.description } : {}),
      ...(input.checkCommands.length > 0 ? { check_commands: input.checkCommands.join("\n") } : {}),
    },
    { env: ctx.env },
  );
  const reply = await ctx.sessions.runChildJson(
    base(ctx, "otto-reviewer", model, `otto: review the fix of PR #${input.pr.number} (pass ${input.pass})`),
    prompt,
    FixReview,
  );
  return reply.value;
}
