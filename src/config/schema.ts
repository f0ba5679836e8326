import { z } from "zod";
import { Count, Duration, HttpUrl, ModelRef, NonEmpty, Commands } from "./fields.ts";
import { PrConfig, ReposConfig } from "./schema-pr.ts";

const Models = z.strictObject({
  primary: ModelRef.optional().describe("Main workhorse model (provider/model). Unset: the model of the session that runs the command."),
  secondary: ModelRef.optional().describe(
    "Critical reviewer model (provider/model). Unset: the model of the session that runs the command.",
  ),
  reviewers: z
    .array(ModelRef)
    .min(1)
    .max(5)
    .optional()
    .describe("1 to 5 models that review artifacts and PRs in parallel. Unset: the secondary model."),
  fix: ModelRef.optional().describe("Model that fixes failing pipelines and review findings. Unset: the primary model."),
});

/**
 * Keys of earlier versions that nothing reads any more: still accepted, so a file that has them
 * keeps loading, and named by `/otto-config validate` (RETIRED_KEYS says why each went).
 */
const Retired = z.unknown().optional();

const Opencode = z.strictObject({
  username: NonEmpty.default("opencode").describe(
    "Basic auth username of the OpenCode server. OPENCODE_SERVER_USERNAME wins over this key.",
  ),
  password: z
    .string()
    .optional()
    .describe("Basic auth password of the OpenCode server. Prefer OPENCODE_SERVER_PASSWORD, which wins over this key."),
  url: Retired.describe("No longer used: otto runs inside OpenCode and talks to its own server."),
  auto_start: Retired.describe("No longer used: the PR watcher's background server is started by /otto-pr watch start --detach."),
  permissions: Retired.describe("No longer used: set permissions of otto's agents in OpenCode's config (agent.otto-executor.permission)."),
});

/** Retired keys and what to do instead; `/otto-config validate` names them when a file has one. */
export const RETIRED_KEYS: Record<string, string> = {
  "opencode.url": "otto runs inside OpenCode and talks to its own server; remove the key",
  "opencode.auto_start": "the PR watcher's background server is started by /otto-pr watch start --detach; remove the key",
  "opencode.permissions":
    'set the permissions of otto\'s agents in OpenCode\'s own config, e.g. "agent": { "otto-executor": { "permission": { "bash": "ask" } } }; remove the key',
};

const Server = z.strictObject({
  poll_interval: Duration.default("2m").describe("How often the otto server polls tracked PRs, e.g. 2m."),
  port: Count(1).max(65535).default(4097).describe("Port of the otto server's local HTTP API."),
  log_dir: NonEmpty.optional().describe("Directory for otto server logs. Default: $XDG_DATA_HOME/otto/logs (~/.local/share/otto/logs)."),
});

const Spec = z.strictObject({
  max_parallel_tasks: Count(1).default(4).describe("How many tasks of one phase run at the same time."),
  task_timeout: Duration.default("30m").describe("Time limit of one task attempt, e.g. 30m."),
  max_task_retries: Count(0)
    .default(3)
    .describe("Retries of a failed task, each in a fresh session told the previous error, before the task is marked failed."),
  task_briefing: z.boolean().default(true).describe("Distil the spec into a brief for each task before it runs."),
  verify: Commands.optional().describe(
    'Commands run after each phase, e.g. ["npm run lint", "npm test"]. Unset: the project\'s own checks, detected from its manifests (package.json scripts, go.mod, Cargo.toml, pytest, Makefile …); [] runs none.',
  ),
  max_verify_fixes: Count(0).default(2).describe("Fix attempts when a verify command fails after a phase."),
  verify_timeout: Duration.default("10m").describe(
    "Time limit of one spec.verify command; a command still running then is killed and counts as failed, e.g. 10m.",
  ),
  review_gate: z
    .boolean()
    .default(true)
    .describe("After each phase, the secondary model reviews the phase's changes (read-only) and the primary model fixes what it found."),
  external_assumptions: z
    .boolean()
    .default(true)
    .describe("After each phase's review gate, the primary model checks and repairs the code's assumptions about external systems."),
  domain_hardening: z
    .boolean()
    .default(true)
    .describe(
      "After each phase's review gate, the primary model hardens and polishes the phase's code (error handling, resilience, clarity).",
    ),
  docs_alignment: z
    .boolean()
    .default(true)
    .describe(
      "After the last phase, the primary model updates the documentation to match the code, the secondary reviews it, and it is committed separately.",
    ),
  stage_timeout: Duration.default("20m").describe(
    "Time limit of one model turn in a /otto-spec stage (writing, reviewing or refining an artifact, answering a question), e.g. 20m.",
  ),
});

const Webhook = z
  .strictObject({
    type: z
      .enum(["teams", "slack", "json"])
      .describe(
        "Payload format: teams (Adaptive Card, for a Teams workflow / Power Automate webhook), slack (incoming webhook), json (otto's own event object).",
      ),
    url: HttpUrl.describe("Webhook URL. A secret: the URL carries its signature."),
  })
  .describe("A webhook that receives otto's notifications.");

const Notify = z.strictObject({
  webhooks: z
    .array(Webhook)
    .default([])
    .describe("Webhooks notified when a PR goes green, otto gives up on a PR, a spec run finishes, or a human is needed."),
  command: NonEmpty.optional().describe("Shell command run for the same events; the message is passed in OTTO_MESSAGE."),
  toast: z.boolean().default(true).describe("Also show the notification as a toast in the OpenCode TUI."),
});

const Git = z.strictObject({
  hooks: z
    .enum(["skip", "run"])
    .default("skip")
    .describe(
      "The repository's git hooks on otto's own commits and pushes: skip (default: --no-verify, no hook runs, since a session could have changed them) or run (inside otto's sandbox, without your credentials).",
    ),
});

/** A path as the user writes it: `~/` is their home; a relative path is the work tree's. */
const SandboxPath = NonEmpty.describe("A path: ~/ is your home, a relative path is the work tree's.");

const SandboxAccess = z.strictObject({
  network: z
    .enum(["open", "none"])
    .default("open")
    .describe(
      "open (default: the internet, which installs need, and no credential is left inside to use on it; not your machine's own services: the host's 127.0.0.1 is unreachable unless allow_ports lists the port, through pasta on Linux) or none (bubblewrap: a network namespace of its own, loopback only; macOS: IP traffic denied).",
    ),
  allow_ports: z
    .array(z.number().int().min(1).max(65535))
    .default([])
    .describe(
      "Ports of your machine's loopback (127.0.0.1) the sandbox may reach with network open: a local database or registry its checks need.",
    ),
  allow_read: z
    .array(SandboxPath)
    .default([])
    .describe(
      "Paths the sandbox shows read-only beyond the defaults (toolchains): files of your home it hides, a secret file of the tree. Shown even when otto counts them as credential stores; otto's own folders stay hidden.",
    ),
  allow_write: z
    .array(SandboxPath)
    .default([])
    .describe("Paths the sandbox shows writable beyond the tree, temp and the package stores (a tool's cache it does not know)."),
});

/** A sum of money in US dollars, e.g. 2.5. */
const Usd = z.number({ message: "an amount in US dollars, e.g. 2.5" }).positive({ message: "an amount above 0" });

const Limits = z.strictObject({
  run_usd: Usd.optional().describe(
    "Budget of one run (execute, task run, build, spec run, pr-review --loop) in US dollars; --budget wins. Unset: no limit. Needs models with a price in OpenCode's config (else only tokens count).",
  ),
  run_tokens: Count(1)
    .optional()
    .describe("Budget of one run in tokens (input, output, reasoning and cache, all counted); --max-tokens wins. Unset: no limit."),
  pr_usd_per_day: Usd.default(5).describe("What the PR watcher may spend on one PR in a day (UTC) before it hands the PR to a person."),
  watcher_usd_per_day: Usd.default(20).describe(
    "What the PR watcher may spend in a day (UTC) on all PRs together before it stops fixing and answering until the next day.",
  ),
  crew_usd_per_agent: Usd.optional().describe("Budget of one crew agent in US dollars; /otto-agent spawn --budget wins. Unset: no limit."),
  repeated_tool_calls: Count(2)
    .default(5)
    .describe(
      "A session that makes the same tool call with the same arguments this many times is stopped, and its attempt fails with that reason.",
    ),
});

/** Rules learning (docs/rules-learning.md): how much one run reads and proposes. */
const Rules = z.strictObject({
  learn_max: Count(1)
    .default(5)
    .describe("Rules one learning run (/otto-rules learn, or the PR watcher's daily one) proposes at most, each as pending."),
  learn_since: Duration.default("30d").describe("How far back learning reads the repository's PRs when --since is not given."),
  learn_daily: z
    .boolean()
    .default(true)
    .describe("The PR watcher learns once a day from the repository it runs in, when its PRs have new signals."),
});

/**
 * One otto.jsonc file as written: every key optional, unknown keys rejected. Parsing the merged
 * files with it fills the defaults: `z.input` is the file, `z.output` the resolved config.
 * Sections use `prefault({})` so their own defaults apply when the section is absent.
 */
export const ConfigFile = z
  .strictObject({
    $schema: z.string().optional().describe("JSON Schema for editor completion, e.g. the path of otto.schema.json."),
    models: Models.prefault({}).describe("Models in OpenCode provider/model form."),
    opencode: Opencode.prefault({}).describe("How otto reaches OpenCode."),
    pr: PrConfig.prefault({}).describe("Pull request lifecycle: tracking, fixing pipeline failures, responding to reviewers."),
    repos: ReposConfig.default([]).describe("Repositories otto manages. An array: the repo file's list replaces the user file's list."),
    server: Server.prefault({}).describe("The long-running otto server (PR monitoring)."),
    spec: Spec.prefault({}).describe("The spec pipeline and task execution."),
    notify: Notify.prefault({}).describe("Where otto reports events that need attention."),
    sandbox: z
      .enum(["auto", "required", "off"])
      .default("auto")
      .describe(
        "Where the commands of otto's work run (sessions' shell commands, checks, hooks): auto (in a sandbox that hides your credentials when bubblewrap or sandbox-exec is available; else the flows you start run with the other guards alone, said once, and the watcher and CI mode refuse to start), required (every flow that runs code refuses to start without one), off (no sandbox, the watcher and CI included).",
      ),
    sandbox_access: SandboxAccess.prefault({}).describe(
      "What the sandbox may reach beyond an empty home with the toolchains and package stores: the network, and paths you allow.",
    ),
    git: Git.prefault({}).describe("How otto runs git on its own commits and pushes."),
    rules: Rules.prefault({}).describe("Team rules otto learns from the repository's PRs."),
    limits: Limits.prefault({}).describe(
      "What otto may spend: budgets of runs, of the PR watcher and of crew agents, and the repeated-tool-call stop.",
    ),
  })
  .describe("otto configuration (~/.config/otto/otto.jsonc, <repo>/.otto/otto.jsonc).");

/** A config file as written (all keys optional). */
export type ConfigFile = z.input<typeof ConfigFile>;

type Parsed = z.output<typeof ConfigFile>;

/** The resolved config: files merged, env applied, defaults filled, `~/` expanded. */
export type Config = Omit<Parsed, "$schema" | "server"> & { server: Parsed["server"] & { log_dir: string } };

export type Repo = Config["repos"][number];
