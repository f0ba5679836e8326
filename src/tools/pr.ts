import type { ToolDefinition } from "@opencode-ai/plugin";
import type { Runtime } from "../runtime.ts";
import {
  addPr,
  ciInit,
  commentsCommand,
  createPullRequest,
  createPrContext,
  fixCommand,
  listPrs,
  listFlakes,
  originUrl,
  prLog,
  prStatus,
  removePr,
  readCiSetup,
  watchControllerFor,
  hostKind,
} from "../pr/index.ts";
import { OttoError } from "../core/index.ts";
import { failJob } from "./fail-job.ts";
import { defineCommand, type CommandContext, type Verb } from "./command.ts";
import { runWatchAction, type WatchAction } from "./pr-watch.ts";
import { ciVerb } from "./pr-ci.ts";

const contextFor = (ctx: CommandContext) => createPrContext(ctx.runtime, ctx.tool.directory);

const one = (positionals: string[]): string | undefined => positionals[0];

function watchVerb(action: WatchAction, summary: string, options: Verb["options"] = {}, args?: string): Verb {
  return {
    path: ["watch", action],
    ...(args ? { args } : {}),
    summary,
    options,
    run: async ({ values }, ctx) => {
      ctx.progress(`otto pr: watch ${action}`);
      try {
        return await runWatchAction(watchControllerFor(ctx.runtime), action, {
          detach: values.detach === true,
          enable: values.enable === true,
        });
      } catch (error) {
        // A script's `opencode run --command otto-pr -- watch start --detach` fails when otto refuses to run unboxed.
        if (hostKind() === "run" && error instanceof OttoError && error.code.startsWith("sandbox_")) failJob();
        throw error;
      }
    },
  };
}

const verbs: Verb[] = [
  {
    path: ["add"],
    args: "<url|id> [--provider github|ado]",
    summary: "Track a PR: by URL (GitHub, Azure DevOps), or by number (--provider, pr.default_provider, or the origin remote)",
    options: { provider: { type: "string" } },
    positionals: { min: 1, max: 1 },
    run: async ({ values, positionals }, ctx) => {
      ctx.progress("otto pr: reading the PR");
      const remote = await originUrl(ctx.tool.directory);
      return addPr(await contextFor(ctx), {
        text: positionals[0] ?? "",
        ...(typeof values.provider === "string" ? { provider: values.provider } : {}),
        ...(remote ? { remoteUrl: remote } : {}),
        now: new Date(),
      });
    },
  },
  {
    path: ["create"],
    args: "[--title <t>] [--body <text> | --spec <slug>] [--base <branch>] [--draft] [--reviewer <login>…]",
    summary:
      "Open a PR for the current branch: push it to origin (never forced), open the PR on origin's forge (Azure DevOps: with auto-complete) and track it; the description comes from --body, from a spec's files, or from the primary model reading the diff. A branch with an open PR is tracked, not opened twice",
    options: {
      title: { type: "string" },
      body: { type: "string" },
      spec: { type: "string" },
      base: { type: "string" },
      draft: { type: "boolean" },
      reviewer: { type: "string", multiple: true },
    },
    positionals: { max: 0 },
    run: async ({ values }, ctx) => {
      const text = (key: string) => (typeof values[key] === "string" ? values[key] : undefined);
      const reviewers = Array.isArray(values.reviewer)
        ? values.reviewer
            .flatMap((r) => r.split(","))
            .map((r) => r.trim())
            .filter(Boolean)
        : [];
      const result = await createPullRequest(ctx.runtime, {
        directory: ctx.tool.directory,
        ...(text("title") !== undefined ? { title: text("title") } : {}),
        ...(text("body") !== undefined ? { body: text("body") } : {}),
        ...(text("spec") !== undefined ? { spec: text("spec") } : {}),
        ...(text("base") !== undefined ? { base: text("base") } : {}),
        draft: values.draft === true,
        reviewers,
        now: new Date(),
        sessionID: ctx.tool.sessionID,
        signal: ctx.tool.abort,
        progress: (m) => ctx.progress(m),
      });
      return result.markdown;
    },
  },
  {
    path: ["list"],
    summary: "List every tracked PR with status and pipeline (e.g. 2/3 passing)",
    run: async (_i, ctx) => listPrs(await contextFor(ctx)),
  },
  {
    path: ["status"],
    args: "[id]",
    summary: "One PR in detail: status, checks, failures, last poll (id optional with one PR tracked)",
    positionals: { max: 1 },
    run: async ({ positionals }, ctx) => prStatus(await contextFor(ctx), one(positionals)),
  },
  {
    path: ["remove"],
    args: "<id>",
    summary: "Stop tracking a PR and delete its document",
    positionals: { min: 1, max: 1 },
    run: async ({ positionals }, ctx) => removePr(await contextFor(ctx), positionals[0] ?? ""),
  },
  {
    path: ["log"],
    args: "[id]",
    summary: "Fix and comment histories and the watcher's log of a PR (id optional with one PR tracked)",
    positionals: { max: 1 },
    run: async ({ positionals }, ctx) => prLog(await contextFor(ctx), one(positionals)),
  },
  {
    path: ["flakes"],
    args: "[--json]",
    summary:
      "Flaky failures the fix flow recorded, by frequency, with links to the PRs and runs; the failures the default branch had (main is red); what a flake saved",
    options: { json: { type: "boolean" } },
    positionals: { max: 0 },
    run: async ({ values }, ctx) => listFlakes(await contextFor(ctx), { json: values.json === true }),
  },
  {
    path: ["comments"],
    args: "[id]",
    summary: "Answer the PR's new reviewer comments now, one by one (fix + reply, or reply with the reasoning), and resolve their threads",
    positionals: { max: 1 },
    run: async ({ positionals }, ctx) =>
      commentsCommand(ctx.runtime, await contextFor(ctx), {
        id: one(positionals),
        sessionID: ctx.tool.sessionID,
        directory: ctx.tool.directory,
        signal: ctx.tool.abort,
        progress: (m) => ctx.progress(m),
      }),
  },
  {
    path: ["fix"],
    args: "[id] [--budget <usd>] [--max-tokens <n>]",
    summary:
      "Fix the PR's red pipeline now: logs → failure summary → re-run (infrastructure) or fix, verify, commit and push; waits until done. --budget / --max-tokens stop it at that spend (default limits.run_usd / run_tokens)",
    options: { budget: { type: "string" }, "max-tokens": { type: "string" } },
    positionals: { max: 1 },
    run: async ({ positionals, values }, ctx) =>
      fixCommand(ctx.runtime, await contextFor(ctx), {
        query: one(positionals),
        directory: ctx.tool.directory,
        sessionID: ctx.tool.sessionID,
        signal: ctx.tool.abort,
        progress: (m) => ctx.progress(m),
        budget: {
          ...(typeof values.budget === "string" ? { budget: values.budget } : {}),
          ...(typeof values["max-tokens"] === "string" ? { maxTokens: values["max-tokens"] } : {}),
        },
      }),
  },
  ciVerb,
  {
    path: ["ci", "init"],
    args: "github|azure [--force] [--workflow <name>…] [--job <name>…] [--check-suite]",
    summary:
      "Write otto's CI files in this repository (GitHub: .github/workflows/otto.yml; Azure: azure-pipelines.otto-job.yml and azure-pipelines.otto.yml), not committed, and list the secrets and permissions to add. --workflow / --job name the CI it follows (default: detected); --force replaces existing files",
    options: {
      force: { type: "boolean" },
      workflow: { type: "string", multiple: true },
      job: { type: "string", multiple: true },
      "check-suite": { type: "boolean" },
    },
    positionals: { min: 1, max: 1 },
    run: async ({ values, positionals }, ctx) => {
      ctx.progress("otto pr: ci init");
      const list = (key: string) => (Array.isArray(values[key]) ? values[key] : []);
      const setup = await readCiSetup(ctx.runtime, ctx.tool.directory, ctx.tool.sessionID);
      return ciInit({
        ...setup,
        forge: positionals[0] ?? "",
        force: values.force === true,
        workflows: list("workflow"),
        jobs: list("job"),
        checkSuites: values["check-suite"] === true,
      });
    },
  },
  watchVerb(
    "start",
    "Poll every tracked PR at server.poll_interval in this OpenCode (TUI), or with --detach in a background opencode serve",
    { detach: { type: "boolean" } },
    "[--detach]",
  ),
  watchVerb("stop", "Stop the PR watcher (this process's, or the background one)"),
  watchVerb("status", "Watcher PID, last and next cycle, and each PR's state"),
  watchVerb("once", "Run one watcher cycle now and show what changed"),
  watchVerb(
    "install",
    "Write a systemd user unit that runs the watcher (--enable also enables and starts it)",
    { enable: { type: "boolean" } },
    "[--enable]",
  ),
];

/** /otto-pr: track PRs and run the watcher (docs/pr.md). */
export function prCommand(runtime: Runtime): ToolDefinition {
  return defineCommand({ name: "otto-pr", summary: "track GitHub and Azure DevOps PRs and watch their pipelines", verbs }, runtime);
}
