import { codebaseSummaryFor, judgeAcceptance, readProjectFacts } from "../../analysis/index.ts";
import type { Task } from "../tasks/schema.ts";
import { findRepoRoot, loadConfig, modelRoles, parseDuration } from "../../config/index.ts";
import { OttoError, type Env, type Logger } from "../../core/index.ts";
import { runBudget, type Budget, type BudgetFlags } from "../../cost/index.ts";
import { sendNotification, type NotifyEvent } from "../../notify/index.ts";
import type { Runtime } from "../../runtime.ts";
import { resolveRoleModel, sameModelNote, type ModelRef, type SessionClient, type SessionRunner } from "../../session/index.ts";

/**
 * Everything a spec verb touches, built once per command from the tool context. Tests build it
 * by hand with a fake runner, a fixed clock and a canned codebase summary.
 */
export interface SpecDeps {
  runner: SessionRunner;
  /** Reads the invoking session's model when a role is unset. */
  client: SessionClient;
  /** The git top-level of the directory the command runs in. */
  repoRoot: string;
  /** The invoking session: every child session shows under it. */
  parentID: string;
  /** The tool's abort signal: cancelling the command aborts the running model turn. */
  signal?: AbortSignal;
  /** Shows progress in the tool's title. */
  progress: (message: string) => void;
  /** `models.primary` / `models.secondary` as configured (unset: the session's model). */
  models: { primary?: string; secondary?: string };
  /** `spec.stage_timeout`: the limit of one model turn. */
  stageTimeoutMs: number;
  once: Set<string>;
  log: Logger;
  env: Env;
  /** The runtime's known secrets (config tokens, webhook URLs, the environment's): redacted from every spec file and history record. */
  secrets: readonly string[];
  now: () => Date;
  /** The `codebase_summary` prompt variable; undefined for an empty repository. */
  codebaseSummary: (root: string) => Promise<string | undefined>;
  /** The budget of each stage run (`--budget`, `--max-tokens`, else limits.run_usd / run_tokens); none: unlimited. */
  budget?: Budget;
  /** Sends one notification (notify.* in otto.jsonc); never throws. */
  notify?: (event: NotifyEvent) => Promise<void>;
  /** Judges the tasks' acceptance checks against the project's tooling (unset: not judged). */
  acceptance?: (root: string) => Promise<(task: Task) => string | undefined>;
}

/** Reads the project's tooling once and judges each task's `verify` command against it. */
export async function acceptanceJudge(root: string): Promise<(task: Task) => string | undefined> {
  const { facts, detection } = await readProjectFacts(root);
  return (task) =>
    task.verify === undefined ? undefined : judgeAcceptance(task.verify, { ...facts, checks: detection.checks }, task.files);
}

export interface CommandInput {
  runtime: Runtime;
  sessionID: string;
  /** The tool context's directory (the session's project directory). */
  directory: string;
  signal?: AbortSignal;
  progress: (message: string) => void;
}

/**
 * Loads the config and finds the repository; refuses to run outside a git repository. With
 * `budget` (the command's flags) each stage run gets a budget: the flags, else the config's run
 * limits. Without it (a flow calling stages under its own account) the stages have none of their own.
 */
export async function createSpecDeps(input: CommandInput, options: { budget?: BudgetFlags } = {}): Promise<SpecDeps> {
  const { runtime } = input;
  const repoRoot = await findRepoRoot(input.directory);
  if (!repoRoot) {
    throw new OttoError(
      "not_a_repository",
      `${input.directory} is not inside a git repository; specs live in <repo>/.otto/specs.`,
      "Run `git init` in the project (or start OpenCode inside a repository), then run the command again.",
    );
  }
  const loaded = await loadConfig({ directory: input.directory, env: runtime.env, runtime });
  const roles = modelRoles(loaded.config);
  const limits = loaded.config.limits;
  const budget = options.budget ? runBudget(options.budget, { usd: limits.run_usd, tokens: limits.run_tokens }) : undefined;
  return {
    runner: runtime.sessions,
    client: runtime.client,
    repoRoot,
    parentID: input.sessionID,
    signal: input.signal,
    progress: input.progress,
    models: { primary: roles.primary, secondary: roles.secondary },
    stageTimeoutMs: parseDuration(loaded.config.spec.stage_timeout),
    once: runtime.once,
    log: runtime.log,
    env: runtime.env,
    secrets: loaded.secrets,
    now: () => new Date(),
    codebaseSummary: (root) => codebaseSummaryFor(root, runtime.log),
    ...(budget ? { budget } : {}),
    notify: async (event) => void (await sendNotification(runtime, input.directory, event)),
    acceptance: acceptanceJudge,
  };
}

export interface StageModels {
  primary: ModelRef;
  secondary: ModelRef;
  /** "models.secondary is not set; using …", once per process: show them in the output. */
  notes: string[];
}

const roleDepsOf = (deps: SpecDeps) => ({
  client: deps.client,
  sessionID: deps.parentID,
  directory: deps.repoRoot,
  once: deps.once,
  log: deps.log,
});

/** The primary model alone, for verbs without a review (`run`): an unset secondary is no concern of theirs. */
export async function resolvePrimaryModel(deps: SpecDeps): Promise<Omit<StageModels, "secondary">> {
  const primary = await resolveRoleModel("primary", deps.models.primary, roleDepsOf(deps));
  return { primary: primary.model, notes: primary.note ? [primary.note] : [] };
}

/** The primary and secondary models, falling back to the invoking session's model. */
export async function resolveStageModels(deps: SpecDeps): Promise<StageModels> {
  const { primary, notes } = await resolvePrimaryModel(deps);
  const secondary = await resolveRoleModel("secondary", deps.models.secondary, roleDepsOf(deps));
  const same = deps.models.secondary ? undefined : sameModelNote(primary, secondary.model);
  return { primary, secondary: secondary.model, notes: [...notes, ...[secondary.note, same].filter((n): n is string => n !== undefined)] };
}
