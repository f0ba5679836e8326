import type { ToolDefinition } from "@opencode-ai/plugin";
import { OttoError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { buildVerb, planVerb, statusVerb, stopVerb, type BuildInput, type RunFlags } from "../build/index.ts";
import { defineCommand, type CommandContext, type Values, type Verb } from "./command.ts";
import { openPrAfterRun } from "./run-pr.ts";

const TARGET = { spec: { type: "string" as const }, all: { type: "boolean" as const }, openspec: { type: "string" as const } };
const RUN_OPTIONS = {
  ...TARGET,
  "max-iterations": { type: "string" as const },
  stagnation: { type: "string" as const },
  here: { type: "boolean" as const },
  pr: { type: "boolean" as const },
  budget: { type: "string" as const },
  "max-tokens": { type: "string" as const },
};
const MANY = 10_000;

const input = (ctx: CommandContext): BuildInput => ({
  runtime: ctx.runtime,
  sessionID: ctx.tool.sessionID,
  directory: ctx.tool.directory,
  signal: ctx.tool.abort,
  progress: (title) => ctx.progress(title),
});

const str = (values: Values, key: string): string | undefined => (typeof values[key] === "string" ? values[key] : undefined);

function count(values: Values, key: string): number | undefined {
  const raw = str(values, key);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new OttoError("usage", `--${key} must be a whole number of at least 1, not '${raw}'.`, `/otto-build --${key} 20`);
  return n;
}

function runFlags(values: Values): RunFlags {
  return {
    spec: str(values, "spec"),
    openspec: str(values, "openspec"),
    all: values.all === true,
    maxIterations: count(values, "max-iterations"),
    stagnation: count(values, "stagnation"),
    here: values.here === true,
    budget: str(values, "budget"),
    maxTokens: str(values, "max-tokens"),
  };
}

const run: Verb["run"] = async ({ values }, ctx) => {
  const result = await buildVerb(input(ctx), runFlags(values));
  if (values.pr !== true) return { title: result.title, output: result.output };
  const target = result.spec ? { slug: result.spec } : {};
  return {
    title: result.title,
    output: await openPrAfterRun(ctx.runtime, { ...result, ...target }, { sessionID: ctx.tool.sessionID, abort: ctx.tool.abort }, (m) =>
      ctx.progress(m),
    ),
  };
};

const verbs: Verb[] = [
  {
    path: [],
    args: "[--spec <slug> | --all | --openspec <change>] [--max-iterations N] [--stagnation K] [--budget USD] [--max-tokens N] [--here] [--pr]",
    summary:
      "Keep a builder session working until every task is done and verified, then commit and archive; --budget/--max-tokens stop it (resumable) when reached. Started on the default branch it commits on a branch of its own (--here: where it stands); --pr opens the PR when done",
    options: RUN_OPTIONS,
    run,
  },
  {
    path: ["run"],
    args: "[--spec <slug> | --all | --openspec <change>] [--max-iterations N] [--budget USD] [--max-tokens N] [--here] [--pr]",
    summary: "Same as /otto-build without a verb",
    options: RUN_OPTIONS,
    run,
  },
  {
    path: ["status"],
    summary: "Show the build loops of this repository (running, paused, stopped, done)",
    run: (_input, ctx) => statusVerb(ctx.tool.directory),
  },
  {
    path: ["stop"],
    args: "[--spec <slug> | --openspec <change>]",
    summary: "Stop the running loop(s), from any session or process; the state is kept for a resume",
    options: { spec: TARGET.spec, openspec: TARGET.openspec },
    run: ({ values }, ctx) => stopVerb(ctx.tool.directory, { spec: str(values, "spec"), openspec: str(values, "openspec") }),
  },
  {
    path: ["plan"],
    args: "<prompt>",
    summary: "Plan unattended: add → requirements → research → design → task generate, then stop for your review",
    positionals: { min: 1, max: MANY },
    run: ({ positionals }, ctx) => planVerb(input(ctx), positionals.join(" ")),
  },
];

/** `/otto-build` (tool `otto_build`). Without arguments it builds the only spec. */
export function buildCommand(runtime: Runtime): ToolDefinition {
  const command = defineCommand({ name: "otto-build", summary: "build mode: work a spec's tasks to done and verified", verbs }, runtime);
  return {
    ...command,
    // The dispatcher answers empty arguments with the usage; here they mean "build the only spec".
    execute: (args, ctx) =>
      command.execute({ ...args, args: (typeof args.args === "string" ? args.args : "").trim() === "" ? "run" : args.args }, ctx),
  };
}
