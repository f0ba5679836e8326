import fs from "node:fs/promises";
import path from "node:path";
import type { PromptVars } from "../prompts/index.ts";
import { ARTIFACTS, type Artifact, type SpecPaths, type Task } from "../spec/index.ts";
import type { RuleSet } from "../rules/index.ts";

/** What the prompts of one phase are given about the spec (read again before each phase). */
export interface SpecContext {
  slug: string;
  paths: SpecPaths;
  /** `.otto/specs/<slug>`, relative to the repository. */
  specDir: string;
  docs: Partial<Record<Artifact, string>>;
  codebaseSummary?: string;
  /** spec.verify, one command a line; undefined when none are configured. */
  checkCommands?: string;
  /** Commit summaries of the phases committed so far, oldest first. */
  phaseSummaries?: string;
  /** The team rules (docs/rules.md), read once per run: each task gets those in scope of its files. */
  rules?: RuleSet;
}

export async function readDocs(paths: SpecPaths): Promise<Partial<Record<Artifact, string>>> {
  const docs: Partial<Record<Artifact, string>> = {};
  for (const artifact of ARTIFACTS) {
    try {
      docs[artifact] = await fs.readFile(paths[artifact], "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return docs;
}

/** Empty documents count as absent, so `{{#if}}` sections stay out. */
const doc = (text: string | undefined): string | undefined => (text?.trim() ? text.trim() : undefined);
const required = (text: string | undefined): string => doc(text) ?? "";

export function specFileList(ctx: SpecContext): string[] {
  return ARTIFACTS.filter((a) => ctx.docs[a] !== undefined).map((a) => `${ctx.specDir}/${a}.md`);
}

/** The task-briefing prompt's variables (pure). */
export function briefingVars(ctx: SpecContext, task: Task): PromptVars<"task-briefing"> {
  return {
    task_id: task.id,
    task_title: task.title,
    task_description: task.description,
    task_files: task.files,
    task_depends_on: task.depends_on,
    tasks_md: required(ctx.docs.tasks),
    requirements_md: required(ctx.docs.requirements),
    research_md: required(ctx.docs.research),
    design_md: required(ctx.docs.design),
    questions_md: doc(ctx.docs.questions),
    phase_summaries: doc(ctx.phaseSummaries),
    codebase_summary: doc(ctx.codebaseSummary),
    spec_dir: ctx.specDir,
  };
}

export interface AttemptInput {
  /** The brief; without it the executor gets the spec documents (the static context). */
  brief?: string;
  /** Other tasks of the phase that run at the same time. */
  parallel: readonly Task[];
  /** The previous attempt's error and the end of its output. */
  previous?: string;
}

/** The execute-task prompt's variables (pure). */
export function executeTaskVars(ctx: SpecContext, task: Task, input: AttemptInput): PromptVars<"execute-task"> {
  const statics = input.brief === undefined;
  return {
    task_id: task.id,
    task_title: task.title,
    task_description: task.description,
    task_files: task.files,
    spec_dir: ctx.specDir,
    spec_files: specFileList(ctx),
    brief: doc(input.brief),
    requirements_md: statics ? doc(ctx.docs.requirements) : undefined,
    research_md: statics ? doc(ctx.docs.research) : undefined,
    design_md: statics ? doc(ctx.docs.design) : undefined,
    questions_md: statics ? doc(ctx.docs.questions) : undefined,
    phase_summaries: doc(ctx.phaseSummaries),
    parallel_tasks: input.parallel.length
      ? input.parallel.map((t) => `${t.id}: ${t.title}${t.files.length ? ` (files: ${t.files.join(", ")})` : ""}`)
      : undefined,
    previous_attempt: doc(input.previous),
    check_commands: ctx.checkCommands,
    codebase_summary: statics ? doc(ctx.codebaseSummary) : undefined,
  };
}

/** The spec directory relative to the repository, with forward slashes. */
export function relativeSpecDir(repoRoot: string, paths: SpecPaths): string {
  return path.relative(repoRoot, paths.dir).split(path.sep).join("/");
}

export { doc, required };
