// The spec subsystem's public entry: other folders import from here, never from the files below.
export { Problem, formatProblems } from "./problems.ts";

export { TASK_STATUSES, TaskStatus, Task, TaskList } from "./tasks/schema.ts";
export { parseTasks } from "./tasks/parse-tasks.ts";
export { serializeTasks, serializeTask } from "./tasks/serialize-tasks.ts";
export { validateTasks, TASK_ID } from "./tasks/validate-tasks.ts";
export { mergeGenerated, type MergeResult } from "./tasks/merge-generated.ts";
export { updateTaskStatus } from "./tasks/update-status.ts";
export { summarizeTasks, type TaskSummary, type StatusCounts } from "./tasks/summarize-tasks.ts";
export { phases, runnableTasks, blockedBy, type Phase } from "./tasks/plan-tasks.ts";

export { QUESTION_STATUSES, QuestionStatus, Question, QuestionList, NewQuestion } from "./questions/schema.ts";
export { parseQuestions } from "./questions/parse-questions.ts";
export { serializeQuestions, serializeQuestion } from "./questions/serialize-questions.ts";
export {
  appendQuestions,
  answerQuestion,
  normalizeQuestionText,
  type AppendResult,
  type AnswerOptions,
} from "./questions/edit-questions.ts";

export { slugFromPrompt, assertSafeSlug } from "./slug.ts";
export { ARTIFACTS, specsDir, specPaths, listSpecs, readArtifacts, type Artifact, type SpecPaths, type SpecEntry } from "./layout.ts";
export { resolveSpec, type SpecCandidate } from "./resolve.ts";
export { checkGate, STAGE_REQUIRES, type Stage } from "./gates.ts";

// The /otto-spec pipeline: stages, questions flow, ad-hoc runs, listings (src/spec/pipeline).
export * from "./pipeline/index.ts";
