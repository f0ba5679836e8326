import { formatError } from "../../core/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { formatCritique, reviewArtifact, type Acceptance, type PassDialog, type ReviewResult } from "../../review/index.ts";
import { extractDocument, formatModel } from "../../session/index.ts";
import type { SpecDeps, StageModels } from "./deps.ts";
import { historyFileName, renderHistory, type HistoryRecord } from "./history.ts";
import { writeHistoryFile } from "./spec-files.ts";
import {
  designVars,
  doc,
  requirementsVars,
  researchVars,
  reviewContext,
  tasksVars,
  type ArtifactStage,
  type StageInput,
} from "./stage-vars.ts";
import { outcomeOf, type StageRun } from "./stage-run.ts";
import { ALL_FILES, applyRules, loadRuleSet } from "../../rules/index.ts";
import type { SpecTarget } from "./target.ts";

/** The generator prompt of a stage, rendered with the user's overrides (pure apart from reading prompt files). */
export function renderStagePrompt(stage: ArtifactStage, input: StageInput, env: SpecDeps["env"]): string {
  switch (stage) {
    case "requirements":
      return renderPrompt("requirements", requirementsVars(input), { env });
    case "research":
      return renderPrompt("research", researchVars(input), { env });
    case "design":
      return renderPrompt("design", designVars(input), { env });
    case "tasks":
      return renderPrompt("tasks", tasksVars(input), { env });
  }
}

export interface ReviewedRun {
  deps: SpecDeps;
  target: Pick<SpecTarget, "slug" | "paths">;
  stage: ArtifactStage;
  /** Name of the history record, e.g. `add`, `design`, `task-generate`. */
  record: string;
  input: StageInput;
  models: StageModels;
  /** The stage run: each pass is charged to its own account under it. */
  stageRun: StageRun;
  accept?: (artifact: string) => Acceptance;
  /** The artifact inside a reply (default extractDocument); tasks reads the questions around it too. */
  extract?: (reply: string) => string;
}

export interface ReviewedResult extends ReviewResult {
  dialogs: PassDialog[];
}

export function modelsOf(models: StageModels): Record<string, string> {
  return { primary: formatModel(models.primary), secondary: formatModel(models.secondary) };
}

/** Every accepted team rule, each with its scope, as the system text of the design and tasks stages. */
async function planRules(deps: SpecDeps): Promise<string> {
  const set = await loadRuleSet(deps.repoRoot, deps.env);
  for (const problem of set.problems) deps.log.log("warn", `team rules: ${problem}`);
  return (await applyRules(set, deps.repoRoot, ALL_FILES, "plan", deps.env)).text;
}

/**
 * A stage's multi-model review: primary writes (refining the existing file when there is one),
 * secondary critiques in a clean session, primary refines. Progress goes to the tool's title. A
 * failure is recorded in history/ (with the primary's dialog) before it is rethrown.
 */
export async function runReviewed(run: ReviewedRun): Promise<ReviewedResult> {
  const { deps, stage, input } = run;
  const artifact = `${stage}.md`;
  const questions_md = doc(input.docs.questions);
  const dialogs: PassDialog[] = [];
  // The design and the tasks decide which files change: they get every accepted rule, with its scope.
  const rules = stage === "design" || stage === "tasks" ? await planRules(deps) : "";
  try {
    const result = await reviewArtifact({
      ...(rules ? { system: rules } : {}),
      runner: deps.runner,
      directory: deps.repoRoot,
      parentID: deps.parentID,
      primary: run.models.primary,
      secondary: run.models.secondary,
      artifact,
      generate: { prompt: renderStagePrompt(stage, input, deps.env) },
      reviewPrompt: (current) =>
        renderPrompt(
          "review",
          { artifact_name: artifact, artifact: current, context: reviewContext(stage, input, current), questions_md },
          { env: deps.env },
        ),
      refinePrompt: (current, critique) =>
        renderPrompt(
          "refine",
          {
            artifact_name: artifact,
            artifact: current,
            critique: formatCritique(critique),
            context: reviewContext(stage, input, current),
            questions_md,
          },
          { env: deps.env },
        ),
      extract: run.extract ?? extractDocument,
      accept: run.accept,
      repairPrompt: (problems) => renderPrompt("document-retry", { artifact_name: artifact, problems }, { env: deps.env }),
      timeoutMs: deps.stageTimeoutMs,
      signal: deps.signal,
      onProgress: deps.progress,
      onDialog: (d) => dialogs.push(d),
      account: (role, model) => run.stageRun.pass(role === "generate" ? "write" : role, formatModel(model)),
    });
    return { ...result, dialogs };
  } catch (error) {
    await saveHistory(
      deps,
      run.target,
      { stage: run.record, slug: run.target.slug, at: deps.now(), outcome: outcomeOf(error), models: modelsOf(run.models), dialogs },
      run.stageRun,
    );
    throw error;
  }
}

/**
 * Writes a history record, with the stage run's spend so far; a failure to do so is logged, never
 * fatal. Returns the file or undefined.
 */
export async function saveHistory(
  deps: SpecDeps,
  target: Pick<SpecTarget, "paths">,
  record: HistoryRecord,
  run?: StageRun,
): Promise<string | undefined> {
  try {
    await deps.runner.meter?.flush();
    const file = await writeHistoryFile(
      target.paths,
      historyFileName(record.at, record.stage),
      renderHistory(run ? { ...record, spend: run.spend() } : record),
      deps.secrets,
    );
    if (run) run.history = file;
    return file;
  } catch (error) {
    deps.log.log("warn", `could not write the history record of ${record.stage}`, { error: formatError(error) });
    return undefined;
  }
}
