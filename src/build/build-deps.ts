import { resolveChecks } from "../analysis/index.ts";
import { findRepoRoot, loadConfig, modelRoles } from "../config/index.ts";
import { OttoError, formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { executeSettings } from "../execute/index.ts";
import { runChecks, runGit } from "../workspace/index.ts";
import { notifierFor } from "../notify/index.ts";
import { resolveRoleModel } from "../session/index.ts";
import { archiveTarget } from "./archive.ts";
import type { BuildDeps } from "./run-build.ts";
import { BuildStore } from "./state.ts";
import type { Builder } from "./turn.ts";
import { assertSandbox } from "../sandbox/index.ts";
import { runBudget, type BudgetFlags } from "../cost/index.ts";
import { buildRules } from "./rules.ts";

export interface BuildInput {
  runtime: Runtime;
  /** The invoking session: the builder shows under it. */
  sessionID: string;
  directory: string;
  signal?: AbortSignal;
  progress: (title: string) => void;
  /** --budget / --max-tokens of the run (limits.run_usd / run_tokens otherwise). */
  budget?: BudgetFlags;
}

/** The git top-level of the tool's directory; build mode commits, so it refuses to run outside a repository. */
export async function repoRootOf(directory: string): Promise<string> {
  const root = await findRepoRoot(directory);
  if (!root) {
    throw new OttoError(
      "not_a_repository",
      `${directory} is not inside a git repository.`,
      "Run `git init` in the project, then /otto-build again.",
    );
  }
  return root;
}

/** Wires the build loop to OpenCode, git, the config and the notifier. */
export async function createBuildDeps(input: BuildInput): Promise<BuildDeps> {
  const { runtime } = input;
  const repoRoot = await repoRootOf(input.directory);
  const loaded = await loadConfig({ directory: input.directory, env: runtime.env, runtime });
  assertSandbox(loaded.config.sandbox, runtime.env);
  const settings = executeSettings(
    loaded.config.spec,
    await resolveChecks("spec.verify", loaded.config.spec.verify, repoRoot),
    loaded.config.sandbox,
    loaded.config.git.hooks,
  );
  const roles = modelRoles(loaded.config);
  const primary = await resolveRoleModel("primary", roles.primary, {
    client: runtime.client,
    sessionID: input.sessionID,
    directory: input.directory,
    once: runtime.once,
    log: runtime.log,
  });
  const notify = notifierFor(runtime, loaded);
  const budget = runBudget(input.budget ?? {}, { usd: loaded.config.limits.run_usd, tokens: loaded.config.limits.run_tokens });
  return {
    ...(budget ? { budget } : {}),
    flushSpend: async () => runtime.sessions.meter?.flush(),
    repoRoot,
    repos: loaded.config.repos,
    store: new BuildStore(repoRoot),
    git: runGit,
    env: runtime.env,
    sandbox: loaded.config.sandbox,
    ...(loaded.config.git.hooks === "run" ? { commitHooks: { sandbox: loaded.config.sandbox } } : {}),
    secrets: loaded.secrets,
    verify: settings.verify,
    runChecks: () =>
      runChecks(settings.verify, {
        cwd: repoRoot,
        timeoutMs: settings.verifyTimeoutMs,
        signal: input.signal,
        env: runtime.env,
        sandbox: loaded.config.sandbox,
        secrets: loaded.secrets,
      }),
    archive: (target) => archiveTarget(target, { repoRoot, now: () => new Date(), env: runtime.env }),
    notify: async (event) => {
      const report = await notify(event);
      for (const f of report.failed) runtime.log.log("warn", `notification via ${f.channel} failed`, { error: f.error });
    },
    progress: input.progress,
    now: () => new Date(),
    pid: process.pid,
    signal: input.signal,
    openBuilder: async (target, resume, account) => {
      const rules = await buildRules(repoRoot, target, runtime.env, (problem) => runtime.log.log("warn", `team rules: ${problem}`));
      const options = {
        parentID: input.sessionID,
        directory: repoRoot,
        agent: "otto-executor",
        model: primary.model,
        title: `otto build: ${target.name}`,
        // One builder turn may do several tasks: spec.task_timeout bounds each turn.
        timeoutMs: settings.taskTimeoutMs,
        keep: true,
        signal: input.signal,
        ...(account ? { account } : {}),
        ...(rules ? { system: rules } : {}),
      };
      // A resumed loop goes on in its session, where the user may have talked to the builder.
      const reopen = resume !== undefined && (await sessionExists(runtime, resume, repoRoot));
      // Its earlier calls were charged by the run that made them: only the new ones are this run's.
      if (reopen && account) runtime.sessions.meter?.track(resume, account, await messageIds(runtime, resume, repoRoot));
      const child = reopen ? await runtime.sessions.attachChild(resume, options) : await runtime.sessions.openChild(options);
      const builder: Builder & { close(): Promise<void> } = {
        id: child.id,
        prompt: (text) => child.prompt(text),
        abort: () => child.abort(),
        close: () => child.close(),
        // The session layer has no call for this; the count tells otto's prompts from anyone else's.
        userMessages: async () => {
          const result = await runtime.client.session.messages({ path: { id: child.id }, query: { directory: repoRoot } });
          if (result.error !== undefined || !result.data) {
            runtime.log.log("warn", "could not read the builder's messages", { error: formatError(result.error) });
            return 0;
          }
          return result.data.filter((m) => m.info.role === "user").length;
        },
      };
      return builder;
    },
  };
}

async function messageIds(runtime: Runtime, id: string, directory: string): Promise<string[]> {
  const result = await runtime.client.session.messages({ path: { id }, query: { directory } });
  return (result.data ?? []).map((m) => m.info.id);
}

/** Whether a session still exists (the user may have deleted a stopped loop's builder). */
async function sessionExists(runtime: Runtime, id: string, directory: string): Promise<boolean> {
  const result = await runtime.client.session.get({ path: { id }, query: { directory } });
  if (result.data) return true;
  if (result.response?.status !== 404)
    runtime.log.log("warn", `could not read the builder session ${id}; opening a new one`, { error: formatError(result.error) });
  return false;
}
