// The /otto-spec verbs (I/O shell) and the pure pieces their tests and the demo use.
export { createSpecDeps, resolveStageModels, type SpecDeps, type CommandInput, type StageModels } from "./deps.ts";
export { addSpec, runDocumentStage, type VerbResult } from "./document-stage.ts";
export { generateTasks, addTask } from "./tasks-stage.ts";
export { resolveQuestions, answerOne, foldInCommand } from "./questions-stage.ts";
export { runAdhoc, specFilesContext } from "./adhoc-run.ts";
export { listVerb, taskListVerb, nextCommand, progressLine, renderTaskList } from "./listing.ts";
export { checkTasksText, addedTasks, type TasksCheck } from "./tasks-check.ts";
export { extractOpenQuestions, newQuestions, type RaisedQuestion } from "./open-questions.ts";
export {
  Resolution,
  Validation,
  decide,
  needsValidation,
  autoAnswerText,
  answerCommand,
  renderQuestionsReport,
  type Outcome,
} from "./questions-flow.ts";
export {
  requirementsVars,
  researchVars,
  designVars,
  tasksVars,
  reviewContext,
  joinDocs,
  type DocStage,
  type ArtifactStage,
  type StageInput,
} from "./stage-vars.ts";
export { renderStagePrompt } from "./reviewed.ts";
export { historyFileName, renderHistory, type HistoryRecord } from "./history.ts";
export { readSpecDocs, writeSpecFile, updateSpecFile, type SpecDocs } from "./spec-files.ts";
export { StageRun, StageStopped, runStage, outcomeOf } from "./stage-run.ts";
export { parseSpendSection, renderSpendSection, spendLine, type PassSpend, type StageSpend } from "./spend.ts";
export { statusVerb, renderStatus, parseStageRecord, flowRuns, type StageRecord, type FlowRun } from "./status.ts";
export { setTaskVerify } from "./task-verify.ts";
export { acceptanceJudge } from "./deps.ts";
