import type { SandboxMode } from "../sandbox/index.ts";
import type { ResolvedChecks } from "../analysis/index.ts";
import type { Repo } from "../config/index.ts";
import type { Env, Logger } from "../core/index.ts";
import type { Budget, RunLimits, Usage } from "../cost/index.ts";
import type { ModelRef, SessionClient, SessionRunner } from "../session/index.ts";
import type { CheckResult, GitControlSnapshot, GitRun, TreeSnapshot } from "../workspace/index.ts";
import type { SharedChange } from "./attribution.ts";
import type { Background } from "./pass.ts";
import type { RunSessions } from "./run-sessions.ts";

/** spec.* settings of the engine, resolved (durations in milliseconds). */
export interface ExecuteSettings {
  maxParallelTasks: number;
  /** Limit of one model turn of any execute session (task attempts, gates, fixes, docs). */
  taskTimeoutMs: number;
  maxTaskRetries: number;
  taskBriefing: boolean;
  /** The checks' commands: spec.verify when set, else the project's detected checks. */
  verify: string[];
  /** Where each check came from (configured or detected); unset by tests that pass `verify` alone. */
  checks?: ResolvedChecks;
  verifyTimeoutMs: number;
  /** otto.jsonc `sandbox`: where the checks run (default auto). */
  sandbox?: SandboxMode;
  /** otto.jsonc `git.hooks`: whether the phase commits run the repository's hooks (in the sandbox). */
  gitHooks?: "skip" | "run";
  maxVerifyFixes: number;
  reviewGate: boolean;
  externalAssumptions: boolean;
  domainHardening: boolean;
  docsAlignment: boolean;
}

export type ToastVariant = "info" | "success" | "warning" | "error";

/**
 * Everything the engine touches, built once per command from the tool context (deps.ts). Tests
 * pass a runner over a fake OpenCode, a temp git repository and a fixed clock.
 */
export interface ExecuteDeps {
  runner: SessionRunner;
  /** Reads the invoking session's model when a role is unset. */
  client: SessionClient;
  /** The git top-level the spec lives in; every session is scoped to it. */
  repoRoot: string;
  /** The invoking session: every child session shows under it. */
  parentID: string;
  signal?: AbortSignal;
  /** The tool's title (live progress). */
  progress(title: string): void;
  /** A TUI toast at phase boundaries (fire and forget). */
  toast(message: string, variant: ToastVariant): void;
  models: { primary?: string; secondary?: string };
  settings: ExecuteSettings;
  git: GitRun;
  once: Set<string>;
  log: Logger;
  env: Env;
  /** The runtime's known secrets (config tokens, webhook URLs, the environment's): redacted from history and questions. */
  secrets: readonly string[];
  now(): Date;
  /** The `codebase_summary` prompt variable; undefined for an empty repository. */
  codebaseSummary(root: string): Promise<string | undefined>;
  /** The checks run once on the untouched tree before the run's first phase: what already failed is not the run's fault. */
  checkBaseline?: CheckResult[];
  /** Session deletions in flight; the run settles them before it returns. */
  background: Background;
  /** The tracked repos (config.repos): where a run started on the default branch commits (src/repo/run-branch.ts). */
  repos?: readonly Repo[];
  /** The run's record of its open child sessions (set under the run lock), for a re-run to clean up. */
  sessions?: RunSessions;
  /** The tree before the run's first session (set by withRunLock): commits take only what changed since. */
  baseline?: TreeSnapshot;
  /** Git's configuration and hooks when the run took its lock: nothing is committed once a session changed them. */
  gitControl?: GitControlSnapshot;
  /** The spec's folder relative to the repository (".otto/specs/<slug>/"): otto's own state, always committed. */
  specInclude?: string[];
  /** Receives lock waits of tasks.md writes (bench). */
  onLockWait?: (ms: number) => void;
  /** otto.jsonc `limits.run_usd` / `limits.run_tokens`: a run's budget when no flag sets one. */
  limits?: RunLimits;
  /** The run's budget (flags over limits, src/cost/budget.ts); unset: no limit. */
  budget?: Budget;
}

export interface Models {
  primary: ModelRef;
  secondary: ModelRef;
  /** "models.secondary is not set; using …", once per process. */
  notes: string[];
}

/** How one task run ended. */
export interface TaskResult {
  id: string;
  title: string;
  group: number;
  status: "completed" | "failed" | "pending";
  attempts: number;
  durationMs: number;
  /** The executor's final message (completed), or the last failure reason. */
  summary: string;
  error?: string;
  /** history/run-NNN.md of each attempt, relative to the repository. */
  history: string[];
  /** Each attempt's dialog, headed by the task id, for question harvesting. */
  dialogs: string[];
  /** The tool was cancelled (or the run's budget reached) while it ran: the task went back to pending. */
  cancelled?: boolean;
  /** What the task's model calls used in this run (brief and every attempt), once its sessions are closed. */
  usage?: Usage;
  /** Evidence of a completed task: the paths changed while its done attempt ran (otto's spec folder aside); in a parallel phase, those its own sessions changed. */
  files?: string[];
  /** In a parallel phase: what its last attempt saw change while several tasks ran shell commands, credited to none alone (attribution.ts). */
  shared?: SharedChange[];
  /** Evidence of a completed task that changed nothing: its `NO_CHANGES:` reason. */
  noChanges?: string;
  /** Evidence: the checks of its verification ("npm test exit 0"), once they ran. */
  checks?: string;
  /** Evidence: short sha of the commit that holds its work. */
  commit?: string;
}

/** One post-task step of a phase (review gate, hardening, verification …) for the summary. */
export interface StepRecord {
  name: string;
  /** One line: "revise: 1 major; fixes applied", "passed", "skipped (spec.review_gate is off)". */
  outcome: string;
  model?: string;
  sessionID?: string;
  dialog?: string;
  warning?: string;
}
