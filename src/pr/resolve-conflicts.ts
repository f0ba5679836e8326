import type { Env } from "../core/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import { taskFailedReason, type ModelRef, type SessionRunner } from "../session/index.ts";
import type { PrInfo } from "./types.ts";

/*
 * The one conflict-resolution session of a rebase that commitAndPush (src/workspace) started because
 * the PR branch moved: shared by the fix flow and the comment flow's AGREE fixes. A fresh
 * executor session in the worktree, deleted after its reply (SessionRunner.runChild).
 */

export interface ConflictSessionContext {
  sessions: SessionRunner;
  env: Env;
  /** The PR's worktree, where the rebase stopped. */
  dir: string;
  parentID?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  /** The team rules in scope, sent as the sessions' system text (src/pr/rules.ts). */
  system?: string;
}

/** True when the session says it resolved them; commitAndPush still checks the files for markers. */
export async function resolveConflicts(
  ctx: ConflictSessionContext,
  model: ModelRef,
  input: { pr: PrInfo; files: readonly string[]; change?: string | undefined },
): Promise<boolean> {
  const prompt = renderPrompt(
    "pr-rebase-conflicts",
    {
      branch: input.pr.sourceBranch,
      conflicted_files: input.files.length > 0 ? [...input.files] : "(git did not name them: run git status)",
      pr_title: input.pr.title,
      ...(input.change ? { change_summary: input.change } : {}),
    },
    { env: ctx.env },
  );
  const reply = await ctx.sessions.runChild(
    {
      directory: ctx.dir,
      agent: "otto-executor",
      model,
      title: `otto: resolve rebase conflicts on PR #${input.pr.number}`,
      timeoutMs: ctx.timeoutMs,
      ...(ctx.parentID ? { parentID: ctx.parentID } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.system ? { system: ctx.system } : {}),
    },
    prompt,
  );
  return taskFailedReason(reply.text) === undefined;
}
