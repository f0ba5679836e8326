/**
 * The fixed lines prompts ask models to write, so code can find the parts it acts on.
 * Prompts and the session layer's extractors must agree on these; change both or neither.
 */
export const MARKERS = {
  /** A line on its own, then one JSON object, then END_JSON: the answer's structured result. */
  jsonBegin: "BEGIN_JSON",
  jsonEnd: "END_JSON",
  /** A line on its own, then a whole document (requirements.md, tasks.md, a brief, …), then END_DOCUMENT. */
  documentBegin: "BEGIN_DOCUMENT",
  documentEnd: "END_DOCUMENT",
  /** Prefix of the last line of an executor's answer when it could not do the job: `TASK_FAILED: <reason>`. */
  taskFailed: "TASK_FAILED:",
} as const;
