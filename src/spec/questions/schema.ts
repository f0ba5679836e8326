import { z } from "zod";
import { EXTRA_KEY } from "../fields.ts";

export const QUESTION_STATUSES = ["unanswered", "answered", "auto-answered", "declined"] as const;
export const QuestionStatus = z.enum(QUESTION_STATUSES);
export type QuestionStatus = z.infer<typeof QuestionStatus>;

/** One `## Qn: title` section of questions.md. */
export const Question = z.object({
  /** The n in `## Qn:`; questions are referred to as `Qn`. */
  number: z.number().int().min(1),
  title: z.string(),
  /** Where it came from, e.g. `design (2026-02-06)` or `task-003 (2026-02-06)`. */
  source: z.string(),
  status: QuestionStatus,
  /** Multi-line markdown, kept whole. */
  question: z.string(),
  answer: z.string().optional(),
  /** Which model confirmed an auto-answer, e.g. `secondary`. */
  validated_by: z.string().optional(),
  extra: z.record(z.string().regex(EXTRA_KEY), z.string()),
});
export type Question = z.infer<typeof Question>;

export const QuestionList = z.object({
  /** Text before the first question, normally `# Questions`. */
  preamble: z.string(),
  questions: z.array(Question),
});
export type QuestionList = z.infer<typeof QuestionList>;

/** A question to append: numbered by appendQuestions, unanswered unless said otherwise. */
export const NewQuestion = Question.omit({ number: true }).extend({
  status: QuestionStatus.optional(),
  extra: Question.shape.extra.optional(),
});
export type NewQuestion = z.infer<typeof NewQuestion>;

export const QUESTION_FIELDS = ["source", "status", "question", "answer", "validated_by"] as const;

export const QUESTION_HEADING = /^#{2,3}[ \t]+Q(?:uestion)?[ \t]*#?(\d+)[ \t]*(?:[:.)\-–—][ \t]*)?(.*)$/i;
