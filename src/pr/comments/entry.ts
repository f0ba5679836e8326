import type { Runtime } from "../../runtime.ts";
import { resolveRoleModel, type ModelRef } from "../../session/index.ts";
import { watcherPrimary, type PrContext, type PrRuntime } from "../context/context.ts";
import { findPr } from "../store/find.ts";
import type { CycleHooks } from "../context/hooks.ts";
import { renderCommentPass } from "./render-pass.ts";
import { runCommentPass, type CommentFlowDeps } from "./run-comments.ts";
import { runWorkflowSteps } from "./workflow-steps.ts";

/*
 * Where the comment flow is entered: the watcher's hooks (every poll) and /otto-pr comments (one
 * pass now, blocking). Both build the same deps from the plugin runtime and the loaded config.
 */

type Log = CommentFlowDeps["log"];

function flowDeps(
  runtime: PrRuntime,
  ctx: PrContext,
  extra: Pick<CommentFlowDeps, "model" | "now" | "log"> & Partial<CommentFlowDeps>,
): CommentFlowDeps {
  return {
    store: ctx.store,
    sessions: runtime.sessions,
    cwd: runtime.directory,
    config: ctx.loaded.config,
    secrets: ctx.loaded.secrets,
    env: runtime.env,
    notify: ctx.notify,
    ...extra,
  };
}

/** The watcher has no session to borrow a model from: models.primary must say which one answers. */
function configuredPrimary(ctx: PrContext): () => Promise<ModelRef> {
  return async () => watcherPrimary(ctx.loaded.config.models.primary, "answering review comments");
}

/** onComments and onPolled for a watcher cycle built from `ctx` (the cycle's fresh context). */
export function watcherHooks(
  runtime: PrRuntime,
  ctx: PrContext,
  options: { now: () => Date; log: Log },
): Pick<CycleHooks, "onComments" | "onPolled"> {
  const deps = flowDeps(runtime, ctx, { model: configuredPrimary(ctx), now: options.now, log: options.log });
  return {
    async onComments({ doc, pr, backend, notify }) {
      const report = await runCommentPass(notify ? { ...deps, notify } : deps, { doc, pr, backend });
      const answered = report.answered.length + report.recovered.length;
      if (answered + report.failed.length > 0)
        options.log("info", `comments on ${doc.key}: ${answered} answered, ${report.failed.length} failed`);
    },
    async onPolled({ doc, pr, backend }) {
      await runWorkflowSteps({ store: ctx.store, now: options.now, secrets: ctx.loaded.secrets, log: options.log }, { doc, pr, backend });
    },
  };
}

export interface CommentsCommandInput {
  id?: string | undefined;
  sessionID: string;
  directory: string;
  signal?: AbortSignal | undefined;
  progress: (message: string) => void;
}

/** /otto-pr comments [id]: one pass over the PR's comments now; a markdown summary. */
export async function commentsCommand(runtime: Runtime, ctx: PrContext, input: CommentsCommandInput): Promise<string> {
  const doc = findPr((await ctx.store.list()).docs, input.id);
  const backend = ctx.registry.get(doc.data.provider);
  input.progress(`otto pr: reading ${doc.key}`);
  const pr = await backend.getPr({ provider: doc.data.provider, number: Number(doc.data.id), repo: doc.data.repo });
  if (pr.state !== "open") return `PR #${pr.number} is ${pr.state}: otto answers comments on open PRs only.`;
  let notes: string[] = [];
  const deps = flowDeps(runtime, ctx, {
    model: async () => {
      const role = await resolveRoleModel("primary", ctx.loaded.config.models.primary, {
        client: runtime.client,
        sessionID: input.sessionID,
        directory: input.directory,
        once: runtime.once,
        log: runtime.log,
      });
      notes = role.note ? [role.note] : [];
      return role.model;
    },
    now: () => new Date(),
    log: (level, message, extra) => runtime.log.log(level, message, extra),
    parentID: input.sessionID,
    cwd: input.directory,
    signal: input.signal,
    progress: input.progress,
    manual: true,
  });
  const report = await runCommentPass(deps, { doc, pr, backend });
  return [renderCommentPass(report, pr), ...notes].join("\n\n");
}
