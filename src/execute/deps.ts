import { checkCommands, codebaseSummaryFor, resolveChecks, type ResolvedChecks } from "../analysis/index.ts";
import { findRepoRoot, loadConfig, modelRoles, parseDuration, type Config } from "../config/index.ts";
import { OttoError, formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { runGit } from "../workspace/index.ts";
import { Background } from "./pass.ts";
import type { ExecuteDeps, ExecuteSettings, ToastVariant } from "./types.ts";
import { assertSandbox } from "../sandbox/index.ts";

export interface ExecuteInput {
  runtime: Runtime;
  /** The invoking session (the tool's ctx.sessionID). */
  sessionID: string;
  /** The tool context's directory. */
  directory: string;
  signal?: AbortSignal;
  progress: (title: string) => void;
}

/** spec.* as the engine uses it (durations parsed), with the checks resolved (resolveChecks: spec.verify, else detected). */
export function executeSettings(
  spec: Config["spec"],
  checks: ResolvedChecks,
  sandbox: Config["sandbox"] = "auto",
  gitHooks: Config["git"]["hooks"] = "skip",
): ExecuteSettings {
  return {
    sandbox,
    gitHooks,
    maxParallelTasks: spec.max_parallel_tasks,
    taskTimeoutMs: parseDuration(spec.task_timeout),
    maxTaskRetries: spec.max_task_retries,
    taskBriefing: spec.task_briefing,
    verify: checkCommands(checks),
    checks,
    verifyTimeoutMs: parseDuration(spec.verify_timeout),
    maxVerifyFixes: spec.max_verify_fixes,
    reviewGate: spec.review_gate,
    externalAssumptions: spec.external_assumptions,
    domainHardening: spec.domain_hardening,
    docsAlignment: spec.docs_alignment,
  };
}

/** Loads the config and finds the repository; refuses to run outside a git repository. */
export async function createExecuteDeps(input: ExecuteInput): Promise<ExecuteDeps> {
  const { runtime } = input;
  const repoRoot = await findRepoRoot(input.directory);
  if (!repoRoot) {
    throw new OttoError(
      "not_a_repository",
      `${input.directory} is not inside a git repository; specs live in <repo>/.otto/specs and each phase is committed.`,
      "Run `git init` in the project (or start OpenCode inside a repository), then run the command again.",
    );
  }
  const { config, secrets } = await loadConfig({ directory: input.directory, env: runtime.env, runtime });
  assertSandbox(config.sandbox, runtime.env);
  const settings = executeSettings(
    config.spec,
    await resolveChecks("spec.verify", config.spec.verify, repoRoot),
    config.sandbox,
    config.git.hooks,
  );
  const roles = modelRoles(config);
  return {
    // Its own limiter sized to spec.max_parallel_tasks: each task holds one model turn for its
    // whole run, so the plugin's shared limit (4) would cap a larger setting.
    runner: runtime.sessions.withConcurrency(settings.maxParallelTasks),
    client: runtime.client,
    repoRoot,
    parentID: input.sessionID,
    signal: input.signal,
    progress: input.progress,
    toast: (message, variant) => toast(runtime, repoRoot, message, variant),
    models: { primary: roles.primary, secondary: roles.secondary },
    settings,
    repos: config.repos,
    limits: { usd: config.limits.run_usd, tokens: config.limits.run_tokens },
    git: runGit,
    background: new Background(),
    once: runtime.once,
    log: runtime.log,
    env: runtime.env,
    secrets,
    now: () => new Date(),
    codebaseSummary: (root) => codebaseSummaryFor(root, runtime.log),
  };
}

/** Toasts are a courtesy: headless runs have no TUI, and a failed toast is only logged. */
function toast(runtime: Runtime, directory: string, message: string, variant: ToastVariant): void {
  runtime.client.tui
    .showToast({ body: { title: "otto", message, variant }, query: { directory } })
    .catch((error: unknown) => runtime.log.log("debug", "could not show a toast", { error: formatError(error) }));
}
