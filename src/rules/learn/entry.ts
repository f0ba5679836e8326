import { findRepoRoot, parseDuration } from "../../config/index.ts";
import { OttoError, formatError } from "../../core/index.ts";
import { createPrContext, watcherPrimary, type PrContext, type PrRuntime } from "../../pr/context/context.ts";
import { originUrl } from "../../pr/remote.ts";
import { parseModel, resolveRoleModel, type ModelRef } from "../../session/index.ts";
import type { Runtime } from "../../runtime.ts";
import type { PrBackend } from "../../pr/backend.ts";
import { readLearnState, learnStateFile, recordLearnRun } from "./consumed.ts";
import { runLearn, type LearnReport } from "./run-learn.ts";
import { renderLearnReport } from "./render.ts";

/*
 * Where learning runs from: `/otto-rules learn [--since 30d]` in a checkout (models by role, the
 * session's as the fallback), and the PR watcher once a day for the repository it runs in.
 */

/** The watcher learns at most this often (when the repository's PRs have new signals). */
export const DAILY_MS = 24 * 60 * 60 * 1000;

interface Target {
  root: string;
  backend: PrBackend;
  repo: string;
}

/** The repository of `directory` and the forge its origin is on. */
async function targetOf(ctx: PrContext, directory: string): Promise<Target> {
  const root = await findRepoRoot(directory);
  if (!root)
    throw new OttoError(
      "rules_no_repo",
      `${directory} is not inside a git repository.`,
      "Run /otto-rules learn inside the repository's checkout.",
    );
  const origin = await originUrl(root);
  for (const backend of origin ? ctx.registry.all() : []) {
    const repo = backend.repoOfRemote(origin ?? "");
    if (repo) return { root, backend, repo };
  }
  throw new OttoError(
    "rules_no_forge",
    `The origin of ${root} (${origin ?? "none"}) is neither a GitHub nor an Azure DevOps repository otto knows.`,
    "Point origin at the repository on GitHub or Azure DevOps (pr.providers.* for servers of your own), then run /otto-rules learn again.",
  );
}

export interface LearnCommandInput {
  runtime: Runtime;
  directory: string;
  sessionID: string;
  /** --since: a duration back from now (default rules.learn_since). */
  since?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** /otto-rules learn: one run, its report as markdown. */
export async function learnCommand(input: LearnCommandInput): Promise<{ title: string; output: string }> {
  const { runtime } = input;
  const ctx = await createPrContext(runtime, input.directory);
  const config = ctx.loaded.config;
  const target = await targetOf(ctx, input.directory);
  const roleDeps = { client: runtime.client, sessionID: input.sessionID, directory: input.directory, once: runtime.once, log: runtime.log };
  const primary = await resolveRoleModel("primary", config.models.primary, roleDeps);
  // The check is a second opinion: the secondary model, else the primary's.
  const secondary: ModelRef = config.models.secondary ? parseModel(config.models.secondary) : primary.model;
  const sinceText = input.since ?? config.rules.learn_since;
  let sinceMs: number;
  try {
    sinceMs = parseDuration(sinceText);
  } catch {
    throw new OttoError("usage", `--since ${sinceText} is not a duration.`, "Write a duration back from now, like --since 30d or 12h.");
  }
  const now = new Date();
  const report = await runLearn(
    {
      sessions: runtime.sessions,
      primary: primary.model,
      secondary,
      root: target.root,
      env: runtime.env,
      parentID: input.sessionID,
      timeoutMs: parseDuration(config.spec.task_timeout),
      signal: input.signal,
      maxRules: config.rules.learn_max,
      now: () => new Date(),
      log: (level, message, extra) => runtime.log.log(level, message, extra),
    },
    {
      backend: target.backend,
      repo: target.repo,
      since: new Date(now.getTime() - sinceMs),
      policy: config.pr.trusted_authors,
      secrets: ctx.loaded.secrets,
    },
  );
  await runtime.sessions.meter?.flush();
  return {
    title: titleOf(report),
    output: [...(primary.note ? [`Note: ${primary.note}.`] : []), renderLearnReport(report, target.repo, sinceText)].join("\n"),
  };
}

const titleOf = (report: LearnReport): string =>
  `otto rules learn: ${report.proposed.length} rule${report.proposed.length === 1 ? "" : "s"} proposed from ${report.fresh.length} new signal${report.fresh.length === 1 ? "" : "s"}`;

/**
 * The watcher's daily learning for the repository it runs in (rules.learn_daily): at most once a
 * day, with the watcher's models (models.primary, it has no session to borrow one from). Never
 * throws: a failure is logged and tried again the next day.
 */
export async function learnDaily(runtime: PrRuntime, ctx: PrContext, now: Date): Promise<LearnReport | undefined> {
  const config = ctx.loaded.config;
  // Without models.primary the watcher has no model for it; outside a repository on a forge, nothing to learn from.
  if (!config.rules.learn_daily || !config.models.primary) return undefined;
  const log = (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => runtime.log.log(level, message, extra);
  const target = await targetOf(ctx, runtime.directory).catch(() => undefined);
  if (!target) return undefined;
  try {
    const file = learnStateFile(runtime.env, target.backend.name, target.repo);
    const state = await readLearnState(file);
    // The first cycle in a repository starts the day: a watcher's start spends nothing on learning
    // (and learns nothing of what its own first pass answered); /otto-rules learn learns now.
    if (!state.last_run) {
      await recordLearnRun(file, [], now);
      return undefined;
    }
    if (now.getTime() - Date.parse(state.last_run) < DAILY_MS) return undefined;
    const primary = watcherPrimary(config.models.primary, "learning team rules");
    const report = await runLearn(
      {
        sessions: runtime.sessions,
        primary,
        secondary: config.models.secondary ? parseModel(config.models.secondary) : primary,
        root: target.root,
        env: runtime.env,
        timeoutMs: parseDuration(config.spec.task_timeout),
        maxRules: config.rules.learn_max,
        now: () => now,
        log,
      },
      {
        backend: target.backend,
        repo: target.repo,
        since: new Date(now.getTime() - parseDuration(config.rules.learn_since)),
        policy: config.pr.trusted_authors,
        secrets: ctx.loaded.secrets,
      },
    );
    if (report.proposed.length > 0 || report.retired.length > 0)
      log("info", `rules learning proposed ${report.proposed.length} and retired ${report.retired.length} rule(s) in ${target.root}`);
    return report;
  } catch (error) {
    log("warn", "the watcher's daily rules learning failed", { error: formatError(error) });
    return undefined;
  }
}
