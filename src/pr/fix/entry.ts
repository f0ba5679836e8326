import { OttoError } from "../../core/index.ts";
import type { Runtime } from "../../runtime.ts";
import { parseModel, resolveRoleModel } from "../../session/index.ts";
import { watcherPrimary, type PrContext, type PrRuntime } from "../context/context.ts";
import { pipelineSummary } from "../pipeline.ts";
import { findPr } from "../store/find.ts";
import { logLine } from "../store/document.ts";
import type { FailureContext } from "../context/hooks.ts";
import { planRefresh } from "../store/refresh.ts";
import { runFix, type FixDeps, type FixModels, type FixOutcome } from "./run-fix.ts";
import { spendLine } from "./flow.ts";
import { settleFlakeProbe } from "./probe-green.ts";
import { formatUsage, runBudget, type BudgetFlags } from "../../cost/index.ts";

/*
 * The two ways into the fix flow: the watcher's onFailure hook (no session to borrow a model
 * from, so models.primary must be set) and `/otto-pr fix [id]` (blocks until done).
 */

type Models = PrContext["loaded"]["config"]["models"];

/** Models for a run without an invoking session (the watcher). */
export function configuredModels(models: Models): FixModels {
  const analysis = watcherPrimary(
    models.primary,
    "the fix flow",
    "Set it: /otto-config set models.primary <provider/model> (models.fix, if set, does the fixing).",
  );
  // No session to fall back to: an unset secondary reviews with the primary, in a clean session all the same.
  return {
    analysis,
    fix: models.fix ? parseModel(models.fix) : analysis,
    review: models.secondary ? parseModel(models.secondary) : analysis,
  };
}

function baseDeps(runtime: PrRuntime, ctx: PrContext, cwd: string): Omit<FixDeps, "models"> {
  return {
    store: ctx.store,
    config: ctx.loaded.config,
    secrets: ctx.loaded.secrets,
    notify: ctx.notify,
    sessions: runtime.sessions,
    env: runtime.env,
    cwd,
    now: () => new Date(),
    log: (level, message, extra) => runtime.log.log(level, message, extra),
  };
}

/** The watcher's onFailure: runs the fix flow for a PR whose failure was just recorded. */
export function fixOnFailure(
  runtime: PrRuntime,
  ctx: PrContext,
  options: { signal?: AbortSignal } = {},
): (failure: FailureContext) => Promise<void> {
  return async (failure) => {
    const outcome = await runFix(
      {
        ...baseDeps(runtime, ctx, runtime.directory),
        models: async () => configuredModels(ctx.loaded.config.models),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(failure.notify ? { notify: failure.notify } : {}),
      },
      { ...failure, trigger: "watcher" },
    );
    runtime.log.log("info", `fix flow for ${outcome.key}: ${outcome.result}${outcome.usage ? ` (${formatUsage(outcome.usage)})` : ""}`, {
      detail: outcome.lines.join(" "),
    });
  };
}

/** The watcher's onGreen: a re-run otto asked for to tell a flake passed; the flake is recorded. */
export function flakeProbeOnGreen(runtime: PrRuntime, ctx: PrContext): (green: FailureContext) => Promise<void> {
  return async (green) => {
    const settled = await settleFlakeProbe(
      {
        storeDir: ctx.store.dir,
        store: ctx.store,
        config: ctx.loaded.config,
        secrets: ctx.loaded.secrets,
        notify: green.notify ?? ctx.notify,
        backend: green.backend,
        now: () => new Date(),
        log: (level, message, extra) => runtime.log.log(level, message, extra),
      },
      green.doc,
      green.pipeline,
    );
    if (settled) runtime.log.log("info", `flake recorded for ${green.doc.key}: the re-run passed`);
  };
}

export interface FixCommandInput {
  query: string | undefined;
  /** The tool's directory and session (the children show under it; its model is the fallback). */
  directory: string;
  sessionID: string;
  signal?: AbortSignal;
  progress(message: string): void;
  /** --budget / --max-tokens as typed. */
  budget?: BudgetFlags;
}

/** `/otto-pr fix [id]`: reads the PR and its pipeline now, and fixes it if it is red. */
export async function fixCommand(
  runtime: Pick<Runtime, "client" | "env" | "log" | "directory" | "sessions" | "once">,
  ctx: PrContext,
  input: FixCommandInput,
): Promise<string> {
  const { docs } = await ctx.store.list();
  const doc = findPr(docs, input.query);
  const limits = ctx.loaded.config.limits;
  // Checked before anything is read: a typo in --budget fails at once.
  const budget = runBudget(
    input.budget ?? {},
    { usd: limits.run_usd, tokens: limits.run_tokens },
    `Run /otto-pr fix ${doc.data.id} again with a larger --budget or --max-tokens: the failure is fixed from where the PR is now.`,
  );
  const backend = ctx.registry.get(doc.data.provider);
  input.progress(`otto pr fix: reading PR #${doc.data.id}`);
  const pr = await backend.getPr({ provider: doc.data.provider, number: Number(doc.data.id), repo: doc.data.repo });
  if (pr.state !== "open") return `PR #${doc.data.id} is ${pr.state}; there is nothing to fix.`;
  const pipeline = await backend.getPipelineStatus(pr);
  const now = new Date().toISOString();
  // Record what was seen, as a poll would: the fix starts from the current head and checks.
  const current = await ctx.store.update(doc.key, (d) => {
    const plan = planRefresh(d, { pr, pipeline }, now);
    return { ...d, data: plan.data, log: [...d.log, ...plan.log.map((l) => logLine(now, l))] };
  });
  if (!current) throw new OttoError("pr_not_tracked", `PR ${doc.key} is no longer tracked.`, "Add it again with /otto-pr add <url>.");
  if (pipeline.state !== "failure")
    return `PR #${doc.data.id}: the pipeline is ${pipeline.state} (${pipelineSummary(pipeline.checks)}) on \`${pr.headSha.slice(0, 7)}\`; nothing to fix.`;

  const notes: string[] = [];
  const models = async (): Promise<FixModels> => {
    const roleDeps = {
      client: runtime.client,
      sessionID: input.sessionID,
      directory: input.directory,
      once: runtime.once,
      log: runtime.log,
    };
    const primary = await resolveRoleModel("primary", ctx.loaded.config.models.primary, roleDeps);
    if (primary.note) notes.push(primary.note);
    const secondary = await resolveRoleModel("secondary", ctx.loaded.config.models.secondary, roleDeps);
    if (secondary.note) notes.push(secondary.note);
    return {
      analysis: primary.model,
      fix: ctx.loaded.config.models.fix ? parseModel(ctx.loaded.config.models.fix) : primary.model,
      review: secondary.model,
    };
  };
  const outcome = await runFix(
    {
      ...baseDeps(runtime, ctx, input.directory),
      models,
      progress: (m) => input.progress(m),
      parentID: input.sessionID,
      budget,
      ...(input.signal ? { signal: input.signal } : {}),
    },
    { doc: current, pr, pipeline, backend, trigger: "manual" },
  );
  return renderOutcome(outcome, notes);
}

/** The fix's summary: its first line names what it cost, its last the cost of each part. */
export function renderOutcome(outcome: FixOutcome, notes: readonly string[] = []): string {
  const total = outcome.usage && outcome.usage.requests > 0 ? `: spent ${formatUsage(outcome.usage)}` : "";
  const parts =
    outcome.parts && outcome.parts.length > 0
      ? ["", `Spend: ${spendLine(outcome.parts)}; total ${formatUsage(outcome.usage ?? outcome.parts[0]!.usage)}.`]
      : [];
  return [`## otto-pr fix: ${outcome.key} (${outcome.result})${total}`, "", ...outcome.lines, ...parts, ...notes.map((n) => `Note: ${n}`)]
    .join("\n")
    .trim();
}
