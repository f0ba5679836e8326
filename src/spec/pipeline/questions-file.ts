import { answerQuestion, appendQuestions, type AnswerOptions } from "../questions/edit-questions.ts";
import { parseQuestions } from "../questions/parse-questions.ts";
import type { Question, QuestionList } from "../questions/schema.ts";
import { serializeQuestion, serializeQuestions } from "../questions/serialize-questions.ts";
import type { SpecPaths } from "../layout.ts";
import { newQuestions, type RaisedQuestion } from "./open-questions.ts";
import { updateSpecFile } from "./spec-files.ts";

export function readQuestionList(text: string | undefined): QuestionList {
  return parseQuestions(text ?? "").questions;
}

export function unanswered(list: QuestionList): Question[] {
  return list.questions.filter((q) => q.status === "unanswered");
}

/** `2026-02-06`, the date form a question's `source` field carries. */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export interface RaisedResult {
  added: Question[];
  /** Unanswered questions in questions.md after the append. */
  open: number;
}

/**
 * Appends the questions a stage raised (its document's `## Open Questions`, or those a tasks or
 * run reply lists) to questions.md, under its lock. New entries are appended to the file as it is,
 * so hand edits elsewhere in it stay byte for byte.
 */
export function recordRaisedQuestions(
  paths: SpecPaths,
  raised: readonly RaisedQuestion[],
  source: string,
  secrets: readonly string[] = [],
): Promise<RaisedResult> {
  return updateSpecFile(
    paths.questions,
    (current) => {
      const list = readQuestionList(current);
      const { added } = appendQuestions(list, newQuestions(list, raised, source));
      const open = unanswered(list).length + added.length;
      if (added.length === 0) return { result: { added, open } };
      const head = current?.trim() ? current.trimEnd() : "# Questions";
      return { text: [head, ...added.map(serializeQuestion)].join("\n\n"), result: { added, open } };
    },
    secrets,
  );
}

export interface AnswerEdit {
  ref: string | number;
  answer: string;
  options?: AnswerOptions;
}

/**
 * Records answers under the lock, against questions.md as it is now. With `onlyUnanswered`, a
 * question the user answered meanwhile is left alone (auto-answers never overwrite a person's).
 */
export function recordAnswers(
  paths: SpecPaths,
  edits: readonly AnswerEdit[],
  onlyUnanswered = false,
  secrets: readonly string[] = [],
): Promise<Question[]> {
  return updateSpecFile(
    paths.questions,
    (current) => {
      let list = readQuestionList(current);
      const written: Question[] = [];
      for (const edit of edits) {
        const number = typeof edit.ref === "number" ? edit.ref : Number(/\d+/.exec(edit.ref)?.[0] ?? NaN);
        const before = list.questions.find((q) => q.number === number);
        if (onlyUnanswered && before?.status !== "unanswered") continue;
        list = answerQuestion(list, edit.ref, edit.answer, edit.options);
        const after = list.questions.find((q) => q.number === number);
        if (after) written.push(after);
      }
      return { text: written.length > 0 ? serializeQuestions(list) : undefined, result: written };
    },
    secrets,
  );
}
