import path from "node:path";
import { errorText } from "../../core/index.ts";
import { type PrContext } from "../context/context.ts";
import { pipelineSummary } from "../pipeline.ts";
import { locatePr } from "../context/registry.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import { documentKey } from "../store/store.ts";
import type { PrBackend } from "../backend.ts";
import type { PipelineStatus, PrInfo, PrLocator } from "../types.ts";

export interface AddInput {
  /** A PR URL, a number, or owner/repo#n. */
  text: string;
  provider?: string;
  /** origin of the repository the command runs in, for bare numbers. */
  remoteUrl?: string;
  now: Date;
}

export function newDocument(pr: PrInfo, key: string, maxFixAttempts: number, now: string, pipeline?: PipelineStatus): PrDocument {
  const status = pr.state === "open" ? "watching" : pr.state;
  return {
    key,
    data: {
      id: String(pr.number),
      provider: pr.provider,
      repo: pr.repo,
      branch: pr.sourceBranch,
      target: pr.targetBranch,
      status,
      url: pr.url,
      title: pr.title,
      created: now,
      head_sha: pr.headSha,
      ...(pipeline ? { pipeline: pipeline.state, last_checked: now } : {}),
      checks: pipeline?.checks ?? [],
      fix_attempts: 0,
      max_fix_attempts: maxFixAttempts,
      seen_comment_ids: [],
      unseen_comments: 0,
      comment_failures: {},
      workflow_done: [],
      errors: 0,
      meta: pr.meta,
    },
    sections: [
      { title: "Fix History", body: "_No fix attempts yet._" },
      { title: "Comment History", body: "_No comments handled yet._" },
    ],
    log: [logLine(now, `added (${status})${pipeline ? `, pipeline ${pipeline.state} (${pipelineSummary(pipeline.checks)})` : ""}`)],
  };
}

/** `/otto-pr add`: reads the PR once (which checks access), then writes its document. */
export async function addPr(ctx: PrContext, input: AddInput): Promise<string> {
  const { backend, locator } = locatePr(ctx.registry, {
    text: input.text,
    ...(input.provider ? { provider: input.provider } : {}),
    ...(ctx.loaded.config.pr.default_provider ? { defaultProvider: ctx.loaded.config.pr.default_provider } : {}),
    context: input.remoteUrl ? { remoteUrl: input.remoteUrl } : {},
  });
  return (await trackPr(ctx, backend, locator, input.now)).text;
}

/**
 * Reads the PR once (which checks access) and writes its document, so the watcher polls it; on an
 * open PR it also reads the pipeline and sets auto-complete (Azure DevOps: "on PRs otto creates or
 * tracks"). Tracking a PR twice reports the first document.
 */
export async function trackPr(ctx: PrContext, backend: PrBackend, locator: PrLocator, now: Date): Promise<{ text: string; pr: PrInfo }> {
  const pr = await backend.getPr(locator);
  const key = documentKey(pr);
  const existing = await ctx.store.read(key);
  if (existing) return { pr, text: `Already tracking PR #${pr.number} (${pr.repo}) as ${key}: status ${existing.data.status}. See /otto-pr status ${key}.` };
  let pipeline: PipelineStatus | undefined;
  let note = "";
  if (pr.state === "open") {
    try {
      pipeline = await backend.getPipelineStatus(pr);
    } catch (error) {
      note += `\nPipeline not read yet (${errorText(error)}); the watcher will retry.`;
    }
    // A provider without the step says so and does nothing.
    try {
      const result = await backend.runWorkflow(pr, "auto_complete");
      if (result.done) note += `\n${result.message}`;
    } catch (error) {
      note += `\nAuto-complete not set: ${errorText(error)}`;
    }
  }
  await ctx.store.create(newDocument(pr, key, ctx.loaded.config.pr.max_fix_attempts, now.toISOString(), pipeline));
  const closed = pr.state === "open" ? "" : `\nThe PR is ${pr.state}: it is recorded but not polled.`;
  const text = [
    `Detected backend: ${backend.name}`,
    `Tracking PR #${pr.number} (${pr.sourceBranch} → ${pr.targetBranch}) in ${pr.repo}: ${pr.title}`,
    pipeline ? `Pipeline: ${pipeline.state}, ${pipelineSummary(pipeline.checks)}` : "",
    `Document: ${path.join(ctx.store.dir, `${key}.md`)}`,
    `Polled by the watcher: /otto-pr watch once (one cycle now) or /otto-pr watch start.${closed}${note}`,
  ]
    .filter(Boolean)
    .join("\n");
  return { pr, text };
}
