import type { ToolDefinition } from "@opencode-ai/plugin";
import { BuildStore, specListJson, taskListJson } from "../build/index.ts";
import type { Runtime } from "../runtime.ts";
import { executeVerb, taskRunVerb, type ExecuteInput } from "../execute/index.ts";
import { openPrAfterRun } from "./run-pr.ts";
import {
  addSpec,
  addTask,
  answerOne,
  createSpecDeps,
  generateTasks,
  listVerb,
  resolveQuestions,
  runAdhoc,
  runDocumentStage,
  taskListVerb,
  type DocStage,
  type SpecDeps,
} from "../spec/index.ts";
import { defineCommand, type CommandContext, type Values, type Verb } from "./command.ts";

const SPEC = { spec: { type: "string" as const } };
// Machine-readable views for other tools (src/build/views.ts).
const JSON_FLAG = { json: { type: "boolean" as const } };
const MANY = 10_000;

function depsFor(ctx: CommandContext): Promise<SpecDeps> {
  return createSpecDeps({
    runtime: ctx.runtime,
    sessionID: ctx.tool.sessionID,
    directory: ctx.tool.directory,
    signal: ctx.tool.abort,
    progress: (message) => ctx.progress(message),
  });
}

const executeInput = (ctx: CommandContext): ExecuteInput => ({
  runtime: ctx.runtime,
  sessionID: ctx.tool.sessionID,
  directory: ctx.tool.directory,
  signal: ctx.tool.abort,
  progress: (message) => ctx.progress(message),
});

const flag = (values: Values): string | undefined => (typeof values.spec === "string" ? values.spec : undefined);

// A run's budget (src/cost/budget.ts checks the values): dollars, tokens.
const BUDGET = { budget: { type: "string" as const }, "max-tokens": { type: "string" as const } };
const budgetOf = (values: Values): { budget?: string; maxTokens?: string } => ({
  ...(typeof values.budget === "string" ? { budget: values.budget } : {}),
  ...(typeof values["max-tokens"] === "string" ? { maxTokens: values["max-tokens"] } : {}),
});

function documentVerb(stage: DocStage, summary: string): Verb {
  return {
    path: [stage],
    args: stage === "requirements" ? "[--spec <slug>] [<instruction>]" : "[--spec <slug>]",
    summary,
    options: SPEC,
    positionals: { max: stage === "requirements" ? MANY : 0 },
    run: async ({ values, positionals }, ctx) => runDocumentStage(await depsFor(ctx), stage, flag(values), positionals.join(" ") || undefined),
  };
}

const verbs: Verb[] = [
  {
    path: ["add"],
    args: "<prompt>",
    summary: "Create a spec from a prompt: reviewed requirements.md in .otto/specs/<slug>/",
    positionals: { min: 1, max: MANY },
    run: async ({ positionals }, ctx) => addSpec(await depsFor(ctx), positionals.join(" ")),
  },
  {
    path: ["list"],
    args: "[--json]",
    summary: "List the specs with their artifacts, task progress, open questions and next step (--json: progress, state, sessions)",
    options: JSON_FLAG,
    run: async ({ values }, ctx) => {
      const { repoRoot } = await depsFor(ctx);
      return values.json ? specListJson(repoRoot, await new BuildStore(repoRoot).list()) : listVerb(repoRoot);
    },
  },
  documentVerb("requirements", "Refine requirements.md (multi-model review), optionally with an extra instruction"),
  documentVerb("research", "Write or refine research.md from the requirements (multi-model review)"),
  documentVerb("design", "Write or refine design.md from requirements and research (multi-model review)"),
  {
    path: ["task", "generate"],
    args: "[--spec <slug>]",
    summary: "Write or refine tasks.md (validated in code; completed tasks are always kept)",
    options: SPEC,
    run: async ({ values }, ctx) => generateTasks(await depsFor(ctx), flag(values)),
  },
  {
    path: ["task", "list"],
    args: "[--spec <slug>] [--json]",
    summary: "Show the tasks with status, parallel group, dependencies and progress (--json: with state and sessions)",
    options: { ...SPEC, ...JSON_FLAG },
    run: async ({ values }, ctx) => {
      const { repoRoot } = await depsFor(ctx);
      return values.json ? taskListJson(repoRoot, flag(values), await new BuildStore(repoRoot).list()) : taskListVerb(repoRoot, flag(values));
    },
  },
  {
    path: ["task", "add"],
    args: "[--spec <slug>] <prompt>",
    summary: "Splice new work into tasks.md (id, dependencies and group chosen by the model, checked in code)",
    options: SPEC,
    positionals: { min: 1, max: MANY },
    run: async ({ values, positionals }, ctx) => addTask(await depsFor(ctx), flag(values), positionals.join(" ")),
  },
  {
    path: ["execute"],
    args: "[--spec <slug>] [--here] [--pr] [--budget <usd>] [--max-tokens <n>]",
    summary:
      "Run tasks.md phase by phase: parallel tasks, review gate, hardening, spec.verify, one commit per phase, then docs; resumable. Started on the default branch it commits on the spec's branch (--here: where it stands); --pr opens the PR when every task is done; --budget/--max-tokens stop it cleanly at that spend",
    options: { ...SPEC, here: { type: "boolean" as const }, pr: { type: "boolean" as const }, ...BUDGET },
    run: async ({ values }, ctx) => {
      const run = await executeVerb(executeInput(ctx), flag(values), { here: values.here === true, ...budgetOf(values) });
      const output = values.pr === true ? await openPrAfterRun(ctx.runtime, run, { sessionID: ctx.tool.sessionID, abort: ctx.tool.abort }, (m) => ctx.progress(m)) : run.output;
      return { title: run.title, output };
    },
  },
  {
    path: ["task", "run"],
    args: "[--spec <slug>] [--id <task-id>] [--here] [--budget <usd>] [--max-tokens <n>]",
    summary: "Run one task (the only runnable one without --id), verify and commit it (on the spec's branch when started on the default branch; --here: where it stands; --budget/--max-tokens: stop at that spend)",
    options: { ...SPEC, id: { type: "string" as const }, here: { type: "boolean" as const }, ...BUDGET },
    run: async ({ values }, ctx) => {
      const run = await taskRunVerb(executeInput(ctx), flag(values), typeof values.id === "string" ? values.id : undefined, { here: values.here === true, ...budgetOf(values) });
      return { title: run.title, output: run.output };
    },
  },
  {
    path: ["questions"],
    args: "[--spec <slug>]",
    summary: "Auto-answer open questions from evidence (checked by the secondary model), list the rest for you",
    options: SPEC,
    run: async ({ values }, ctx) => resolveQuestions(await depsFor(ctx), flag(values)),
  },
  {
    path: ["questions", "answer"],
    args: "[--spec <slug>] <Qn> <answer>",
    summary: "Record your answer to a question",
    options: SPEC,
    positionals: { min: 2, max: MANY },
    run: async ({ values, positionals }, ctx) => {
      const [ref = "", ...words] = positionals;
      return answerOne(await depsFor(ctx), flag(values), ref, words.join(" "));
    },
  },
  {
    path: ["run"],
    args: "[--spec <slug>] <prompt>",
    summary: "Ad-hoc prompt with every spec file as context; no review, the session is kept for you to continue",
    options: SPEC,
    positionals: { min: 1, max: MANY },
    run: async ({ values, positionals }, ctx) => runAdhoc(await depsFor(ctx), flag(values), positionals.join(" ")),
  },
];

/** /otto-spec: from a prompt to a reviewed, validated tasks.md (docs/spec.md). */
export function specCommand(runtime: Runtime): ToolDefinition {
  return defineCommand({ name: "otto-spec", summary: "specs: requirements → research → design → tasks, each reviewed by a second model", verbs }, runtime);
}
