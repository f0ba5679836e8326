import { OttoError } from "../../core/index.ts";
import { formatUsage } from "../../cost/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { generateChecked, type Acceptance, type PassDialog } from "../../review/index.ts";
import { extractDocument, formatModel } from "../../session/index.ts";
import type { SpecPaths } from "../layout.ts";
import { parseTasks } from "../tasks/parse-tasks.ts";
import type { Task, TaskList } from "../tasks/schema.ts";
import type { Question } from "../questions/schema.ts";
import { resolvePrimaryModel, resolveStageModels, type SpecDeps } from "./deps.ts";
import type { VerbResult } from "./document-stage.ts";
import { questionsOutsideDocument, type RaisedQuestion } from "./open-questions.ts";
import { isoDate, recordRaisedQuestions } from "./questions-file.ts";
import { passRows, renderStageReport } from "./render-output.ts";
import { modelsOf, renderStagePrompt, runReviewed, saveHistory } from "./reviewed.ts";
import { readSpecDocs, updateSpecFile } from "./spec-files.ts";
import { outcomeOf, runStage, StageRun } from "./stage-run.ts";
import { addedTasks, checkTasksText, countGroups, type AcceptanceJudge } from "./tasks-check.ts";
import { nextStepAfter, resolveTarget, type SpecTarget } from "./target.ts";

/**
 * How every model answer is read and checked. Restored-task notes and the open questions listed
 * after the document are collected from accepted answers only (generate and refine alike: the
 * refine prompt does not repeat the questions, so the generator's would be lost otherwise).
 */
function tasksReader(existing: TaskList | undefined, notes: Set<string>, raised: RaisedQuestion[], acceptance?: AcceptanceJudge) {
  let questions: RaisedQuestion[] = [];
  return {
    extract: (reply: string): string => {
      questions = questionsOutsideDocument(reply);
      return extractDocument(reply);
    },
    accept: (artifact: string): Acceptance => {
      const check = checkTasksText(artifact, existing, acceptance);
      if (!check.ok) return { ok: false, problems: check.problems };
      check.notes.forEach((n) => notes.add(n));
      raised.push(...questions);
      return { ok: true, artifact: check.text };
    },
  };
}

/** Appends the questions the tasks stage raised to questions.md; the report's `questions` entry. */
async function recordTaskQuestions(
  paths: SpecPaths,
  raised: readonly RaisedQuestion[],
  stage: string,
  at: Date,
  rel: (file: string) => string,
  slug: string,
  secrets: readonly string[],
) {
  const result = await recordRaisedQuestions(paths, raised, `${stage} (${isoDate(at)})`, secrets);
  return { ...result, file: rel(paths.questions), command: `/otto-spec questions --spec ${slug}` };
}

/**
 * Writes the final tasks.md under its lock, merged once more with the file as it is NOW (the
 * execution engine may have completed tasks while the model was thinking). Never writes an invalid list.
 */
function writeTasks(paths: SpecPaths, text: string, notes: Set<string>, secrets: readonly string[]): Promise<TaskList> {
  return updateSpecFile(
    paths.tasks,
    (current) => {
      const check = checkTasksText(text, current === undefined ? undefined : parseTasks(current).tasks);
      if (!check.ok) {
        throw new OttoError(
          "tasks_conflict",
          `tasks.md changed while the model worked, and the result no longer fits it:\n${check.problems}`,
          "Run the command again.",
        );
      }
      check.notes.forEach((n) => notes.add(n));
      return { text: check.text, result: check.list };
    },
    secrets,
  );
}

const raisedNotes = (added: readonly Question[]) => added.map((q) => `Q${q.number} raised: ${q.title}`);

const describeTask = (t: Task) =>
  `${t.id} (group ${t.parallel_group}${t.depends_on.length ? `, depends on ${t.depends_on.join(", ")}` : ""}): ${t.title}`;

/** `/otto-spec task generate`: tasks.md through the review, validated in code, completed tasks kept. */
export async function generateTasks(deps: SpecDeps, flag?: string): Promise<VerbResult> {
  const target = resolveTarget(deps.repoRoot, flag, "task-generate");
  const run = new StageRun(deps, "task generate", target.slug, `/otto-spec task generate --spec ${target.slug}`, deps.now());
  const refining = target.present.has("tasks");
  return runStage(
    deps,
    run,
    () => writeGenerated(deps, target, run),
    () => ({
      undone: [`tasks.md was not ${refining ? "refined" : "written"}: every spec file is as it was before the stage`],
      rel: target.rel,
    }),
  );
}

async function writeGenerated(deps: SpecDeps, target: SpecTarget, stageRun: StageRun): Promise<VerbResult> {
  const { paths, slug, rel } = target;
  const docs = await readSpecDocs(paths);
  const existing = docs.tasks === undefined ? undefined : parseTasks(docs.tasks).tasks;
  const models = await resolveStageModels(deps);
  const notes = new Set<string>();
  const raised: RaisedQuestion[] = [];
  const input = { docs, codebaseSummary: await deps.codebaseSummary(deps.repoRoot) };
  const acceptance = await deps.acceptance?.(deps.repoRoot);
  const result = await runReviewed({
    deps,
    target,
    stage: "tasks",
    record: "task-generate",
    input,
    models,
    stageRun,
    ...tasksReader(existing, notes, raised, acceptance),
  });
  const list = await writeTasks(paths, result.final, notes, deps.secrets);
  const at = deps.now();
  const questions = await recordTaskQuestions(paths, raised, "tasks", at, rel, slug, deps.secrets);

  const completed = list.tasks.filter((t) => t.status === "completed").length;
  const lines = [
    `${existing ? "Refined" : "Generated"} ${tasksText(list.tasks.length)} in ${countGroups(list)} parallel group${countGroups(list) === 1 ? "" : "s"}${completed ? ` (${completed} completed, kept as they were)` : ""}.`,
    ...[...notes].map((n) => `Restored: ${n}`),
  ];
  const history = await saveHistory(
    deps,
    target,
    {
      stage: "task-generate",
      slug,
      at,
      outcome: `wrote tasks.md (${tasksText(list.tasks.length)})`,
      models: modelsOf(models),
      passes: result.passes,
      critiques: result.critiques,
      notes: [...result.warnings, ...notes, ...raisedNotes(questions.added)],
      dialogs: result.dialogs,
    },
    stageRun,
  );
  const spend = stageRun.spend();
  const output = renderStageReport({
    heading: `tasks.md ${existing ? "refined" : "generated"} for ${slug}`,
    written: [rel(paths.tasks)],
    lines,
    passes: passRows(
      spend.passes,
      result.passes.map((p) => p.summary),
    ),
    total: spend.usage,
    questions,
    warnings: result.warnings,
    notes: models.notes,
    history: history ? rel(history) : undefined,
    next: nextStepAfter("tasks", slug),
  });
  return { title: `otto-spec: ${tasksText(list.tasks.length)} for ${slug} (${formatUsage(spend.usage)})`, output };
}

/** `/otto-spec task add <prompt>`: the primary splices the work into tasks.md (add-task mode), checked like generate. */
export async function addTask(deps: SpecDeps, flag: string | undefined, request: string): Promise<VerbResult> {
  if (!request.trim()) throw new OttoError("usage", "The task description is empty.", '/otto-spec task add "<the work to add>"');
  const target = resolveTarget(deps.repoRoot, flag, "task-add");
  const run = new StageRun(
    deps,
    "task add",
    target.slug,
    `/otto-spec task add --spec ${target.slug} "${request.replace(/"/g, "'")}"`,
    deps.now(),
  );
  return runStage(
    deps,
    run,
    () => spliceTask(deps, target, run, request),
    () => ({ undone: ["no task was added: tasks.md is as it was before the stage"], rel: target.rel }),
  );
}

async function spliceTask(deps: SpecDeps, target: SpecTarget, stageRun: StageRun, request: string): Promise<VerbResult> {
  const { paths, slug, rel } = target;
  const docs = await readSpecDocs(paths);
  const existing = parseTasks(docs.tasks ?? "").tasks;
  // No review: the secondary is not needed, so an unset one is not resolved (nor reported).
  const models = await resolvePrimaryModel(deps);
  const notes = new Set<string>();
  const raised: RaisedQuestion[] = [];
  const dialogs: PassDialog[] = [];
  const prompt = renderStagePrompt(
    "tasks",
    { docs, codebaseSummary: await deps.codebaseSummary(deps.repoRoot), taskRequest: request },
    deps.env,
  );
  const record = { stage: "task-add", slug, models: { primary: formatModel(models.primary) }, dialogs };
  const reader = tasksReader(existing, notes, raised, await deps.acceptance?.(deps.repoRoot));

  deps.progress("primary adding the task to tasks.md");
  let list: TaskList;
  try {
    const reply = await generateChecked(
      deps.runner,
      {
        parentID: deps.parentID,
        directory: deps.repoRoot,
        agent: "otto-reviewer",
        model: models.primary,
        title: "otto: add a task to tasks.md",
        timeoutMs: deps.stageTimeoutMs,
        signal: deps.signal,
        account: stageRun.pass("write", formatModel(models.primary)),
      },
      "generate",
      prompt,
      {
        artifact: "tasks.md",
        extract: reader.extract,
        accept: reader.accept,
        repairPrompt: (problems) => renderPrompt("document-retry", { artifact_name: "tasks.md", problems }, { env: deps.env }),
        onDialog: (d) => dialogs.push(d),
      },
    );
    list = await writeTasks(paths, reply.artifact, notes, deps.secrets);
  } catch (error) {
    await saveHistory(deps, target, { ...record, at: deps.now(), outcome: outcomeOf(error) }, stageRun);
    throw error;
  }

  const added = addedTasks(existing, list);
  const at = deps.now();
  const questions = await recordTaskQuestions(paths, raised, "task add", at, rel, slug, deps.secrets);
  const history = await saveHistory(
    deps,
    target,
    {
      ...record,
      at,
      outcome: `added ${added.map((t) => t.id).join(", ") || "no task"}`,
      notes: [...notes, ...raisedNotes(questions.added)],
    },
    stageRun,
  );
  const spend = stageRun.spend();
  const output = renderStageReport({
    heading: `Task added to ${slug}`,
    written: [rel(paths.tasks)],
    lines: [...added.map((t) => `Added ${describeTask(t)}`), ...[...notes].map((n) => `Restored: ${n}`)],
    passes: passRows(spend.passes, [`added ${added.map((t) => t.id).join(", ") || "no task"}`]),
    total: spend.usage,
    questions,
    warnings: added.length === 0 ? [`The model added no task with a new id (${formatModel(models.primary)}); check tasks.md.`] : [],
    notes: models.notes,
    history: history ? rel(history) : undefined,
    next: nextStepAfter("tasks", slug),
  });
  return { title: `otto-spec: added ${added.length} task(s) to ${slug} (${formatUsage(spend.usage)})`, output };
}

const tasksText = (n: number): string => `${n} task${n === 1 ? "" : "s"}`;
