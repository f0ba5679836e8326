import { z } from "zod";

/**
 * Something wrong with a spec file, phrased so it can be sent to a model verbatim for repair.
 * `line` (1-based) is set when the problem comes from a file's text; rules checked on the model
 * (validateTasks) name the task instead.
 */
export const Problem = z.object({
  line: z.number().int().min(1).optional(),
  message: z.string(),
});
export type Problem = z.infer<typeof Problem>;

/** One problem a line: `tasks.md:12: message`, or `tasks.md: message` without a line. */
export function formatProblems(problems: readonly Problem[], file: string): string {
  return problems.map((p) => (p.line ? `${file}:${p.line}: ${p.message}` : `${file}: ${p.message}`)).join("\n");
}
