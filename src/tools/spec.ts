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
  StageStopped,
  statusVerb,
  setTaskVerify,
  acceptanceJudge,
  taskListVerb,
  type DocStage,
  type SpecDeps,
} from "../spec/index.ts";
import type { VerbResult } from "../spec/index.ts";
import { OttoError } from "../core/index.ts";
import { defineCommand, type CommandContext, type Values, type Verb } from "./command.ts";

const SPEC = { spec: { type: "string" as const } };
// A stage run's budget (docs/cost.md): the flags win over limits.run_usd / run_tokens.
const BUDGET = { budget: { type: "string" as const }, "max-tokens": { type: "string" as const } };
const BUDGET_ARGS = "[--budget <usd>] [--max-tokens <n>]";
// Machine-readable views for other tools (src/build/views.ts).
const JSON_FLAG = { json: { type: "boolean" as const } };
const MANY = 10_000;

function depsFor(ctx: CommandContext, values?: Values): Promise<SpecDeps> {
  const text = (v: Values[string]) => (typeof v === "string" ? v : undefined);
  return createSpecDeps(
    {
      runtime: ctx.runtime,
      sessionID: ctx.tool.sessionID,
      directory: ctx.tool.directory,
      signal: ctx.tool.abort,
      progress: (message) => ctx.progress(message),
    },
    values ? { budget: { budget: text(values.budget), maxTokens: text(values["max-tokens"]) } } : {},
  );
}

/** A stage that model calls: with a budget, and its stop report as the command's output. */
async function stage(run: () => Promise<VerbResult>): Promise<VerbResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StageStopped) return error.result;
    throw error;
  }
}

const executeInput = (ctx: CommandContext): ExecuteInput => ({
  runtime: ctx.runtime,
  sessionID: ctx.tool.sessionID,
  directory: ctx.tool.directory,
  signal: ctx.tool.abort,
  progress: (message) => ctx.progress(message),
});

const flag = (values: Values): string | undefined => (typeof values.spec === "string" ? values.spec : undefined);

const budgetOf = (values: Values): { budget?: string; maxTokens?: string } => ({
  ...(typeof values.budget === "string" ? { budget: values.budget } : {}),
  ...(typeof values["max-tokens"] === "string" ? { maxTokens: values["max-tokens"] } : {}),
});

function documentVerb(name: DocStage, summary: string): Verb {
  return {
    path: [name],
    args: name === "requirements" ? `[--spec <slug>] ${BUDGET_ARGS} [<instruction>]` : `[--spec <slug>] ${BUDGET_ARGS}`,
    summary,
    options: { ...SPEC, ...BUDGET },
    positionals: { max: name === "requirements" ? MANY : 0 },
    run: async ({ values, positionals }, ctx) =>
      stage(async () => runDocumentStage(await depsFor(ctx, values), name, flag(values), positionals.join(" ") || undefined)),
  };
}

const verbs: Verb[] = [
  {
    path: ["add"],
    args: `${BUDGET_ARGS} <prompt>`,
    summary: "Create a spec from a prompt: reviewed requirements.md in .otto/specs/<slug>/",
    options: BUDGET,
    positionals: { min: 1, max: MANY },
    run: async ({ values, positionals }, ctx) => stage(async () => addSpec(await depsFor(ctx, values), positionals.join(" "))),
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
    args: `[--spec <slug>] ${BUDGET_ARGS}`,
    summary: "Write or refine tasks.md (validated in code; completed tasks are always kept)",
    options: { ...SPEC, ...BUDGET },
    run: async ({ values }, ctx) => stage(async () => generateTasks(await depsFor(ctx, values), flag(values))),
  },
  {
    path: ["task", "list"],
    args: "[--spec <slug>] [--json]",
    summary: "Show the tasks with status, parallel group, dependencies and progress (--json: with state and sessions)",
    options: { ...SPEC, ...JSON_FLAG },
    run: async ({ values }, ctx) => {
      const { repoRoot } = await depsFor(ctx);
      return values.json
        ? taskListJson(repoRoot, flag(values), await new BuildStore(repoRoot).list())
        : taskListVerb(repoRoot, flag(values));
    },
  },
  {
    path: ["task", "add"],
    args: `[--spec <slug>] ${BUDGET_ARGS} <prompt>`,
    summary: "Splice new work into tasks.md (id, dependencies and group chosen by the model, checked in code)",
    options: { ...SPEC, ...BUDGET },
    positionals: { min: 1, max: MANY },
    run: async ({ values, positionals }, ctx) =>
      stage(async () => addTask(await depsFor(ctx, values), flag(values), positionals.join(" "))),
  },
  {
    path: ["task", "verify"],
    args: "[--spec <slug>] <task-id> <command> | --clear",
    summary: "Set (or --clear) a task's acceptance check: the command that must exit 0 after the task before it counts as completed",
    options: { ...SPEC, clear: { type: "boolean" as const } },
    positionals: { min: 1, max: MANY },
    run: async ({ values, positionals }, ctx) => {
      const [id = "", ...words] = positionals;
      const command = words.join(" ").trim();
      if (values.clear === true ? command !== "" : command === "")
        throw new OttoError(
          "usage",
          "Give the task's id and either a command or --clear.",
          "/otto-spec task verify task-002 npm test -- test/greeting.test.ts",
        );
      const { repoRoot, secrets } = await depsFor(ctx);
      return setTaskVerify(repoRoot, flag(values), id, command || undefined, {
        judge: command ? await acceptanceJudge(repoRoot) : undefined,
        secrets,
      });
    },
  },
  {
    path: ["execute"],
    args: "[--spec <slug>] [--here] [--pr] [--budget <usd>] [--max-tokens <n>]",
    summary:
      "Run tasks.md phase by phase: parallel tasks, review gate, hardening, spec.verify, one commit per phase, then docs; resumable. Started on the default branch it commits on the spec's branch (--here: where it stands); --pr opens the PR when every task is done; --budget/--max-tokens stop it cleanly at that spend",
    options: { ...SPEC, here: { type: "boolean" as const }, pr: { type: "boolean" as const }, ...BUDGET },
    run: async ({ values }, ctx) => {
      const run = await executeVerb(executeInput(ctx), flag(values), { here: values.here === true, ...budgetOf(values) });
      const output =
        values.pr === true
          ? await openPrAfterRun(ctx.runtime, run, { sessionID: ctx.tool.sessionID, abort: ctx.tool.abort }, (m) => ctx.progress(m))
          : run.output;
      return { title: run.title, output };
    },
  },
  {
    path: ["task", "run"],
    args: "[--spec <slug>] [--id <task-id>] [--here] [--budget <usd>] [--max-tokens <n>]",
    summary:
      "Run one task (the only runnable one without --id), verify and commit it (on the spec's branch when started on the default branch; --here: where it stands; --budget/--max-tokens: stop at that spend)",
    options: { ...SPEC, id: { type: "string" as const }, here: { type: "boolean" as const }, ...BUDGET },
    run: async ({ values }, ctx) => {
      const run = await taskRunVerb(executeInput(ctx), flag(values), typeof values.id === "string" ? values.id : undefined, {
        here: values.here === true,
        ...budgetOf(values),
      });
      return { title: run.title, output: run.output };
    },
  },
  {
    path: ["questions"],
    args: `[--spec <slug>] ${BUDGET_ARGS}`,
    summary: "Auto-answer open questions from evidence (checked by the secondary model), list the rest for you",
    options: { ...SPEC, ...BUDGET },
    run: async ({ values }, ctx) => stage(async () => resolveQuestions(await depsFor(ctx, values), flag(values))),
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
    args: `[--spec <slug>] ${BUDGET_ARGS} <prompt>`,
    summary: "Ad-hoc prompt with every spec file as context; no review, the session is kept for you to continue",
    options: { ...SPEC, ...BUDGET },
    positionals: { min: 1, max: MANY },
    run: async ({ values, positionals }, ctx) =>
      stage(async () => runAdhoc(await depsFor(ctx, values), flag(values), positionals.join(" "))),
  },
  {
    path: ["status"],
    args: "[--spec <slug>] [<slug>]",
    summary:
      "A spec's stages and their state, tasks done and left, and what it spent: per stage (history/) and per execute run (the ledger)",
    options: SPEC,
    positionals: { max: 1 },
    run: async ({ values, positionals }, ctx) => {
      const { repoRoot, env } = await depsFor(ctx);
      return statusVerb(repoRoot, env, flag(values) ?? positionals[0]);
    },
  },
];

/** /otto-spec: from a prompt to a reviewed, validated tasks.md (docs/spec.md). */
export function specCommand(runtime: Runtime): ToolDefinition {
  return defineCommand(
    { name: "otto-spec", summary: "specs: requirements → research → design → tasks, each reviewed by a second model", verbs },
    runtime,
  );
}
