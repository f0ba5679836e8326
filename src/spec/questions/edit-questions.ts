import { OttoError } from "../../core/errors.ts";
import { normalizeProse } from "../fields.ts";
import type { NewQuestion, Question, QuestionList, QuestionStatus } from "./schema.ts";

export interface AppendResult {
  list: QuestionList;
  added: Question[];
  /** New questions whose text matched a question already in the list (or earlier in the batch). */
  skipped: NewQuestion[];
}

/** Case, spacing and end punctuation do not make a question different. */
export function normalizeQuestionText(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^[\s"'`]+|[\s"'`?.!:;]+$/g, "");
}

/** Appends questions numbered after the highest existing one, skipping exact duplicates. */
export function appendQuestions(list: QuestionList, newOnes: readonly NewQuestion[]): AppendResult {
  const seen = new Set(list.questions.map((q) => normalizeQuestionText(q.question)));
  let next = Math.max(0, ...list.questions.map((q) => q.number)) + 1;
  const added: Question[] = [];
  const skipped: NewQuestion[] = [];
  for (const item of newOnes) {
    const key = normalizeQuestionText(item.question);
    if (key === "" || seen.has(key)) {
      skipped.push(item);
      continue;
    }
    seen.add(key);
    added.push({ ...item, number: next++, status: item.status ?? "unanswered", extra: item.extra ?? {} });
  }
  return { list: { ...list, questions: [...list.questions, ...added] }, added, skipped };
}

export interface AnswerOptions {
  status?: Exclude<QuestionStatus, "unanswered">;
  /** Set for auto-answers confirmed by another model; any earlier value is dropped otherwise. */
  validated_by?: string;
}

/** Records an answer to `Q2` (or `2`). Unknown ids are an error that lists the valid ones. */
export function answerQuestion(list: QuestionList, ref: string | number, answer: string, options: AnswerOptions = {}): QuestionList {
  const valid = list.questions.map((q) => `Q${q.number}`);
  const number = typeof ref === "number" ? ref : Number(/^\s*q?(\d+)\s*$/i.exec(ref)?.[1] ?? NaN);
  const index = list.questions.findIndex((q) => q.number === number);
  const target = list.questions[index];
  if (!target) {
    const known = valid.length > 0 ? `the questions are ${valid.join(", ")}` : "questions.md has no questions yet";
    throw new OttoError(
      "question_not_found",
      `No question '${String(ref)}': ${known}.`,
      valid.length > 0 ? `Use one of: ${valid.join(", ")}` : "Run /otto-spec questions to see the open questions",
    );
  }
  const text = normalizeProse(answer);
  if (text === "") {
    throw new OttoError("empty_answer", `The answer to Q${target.number} is empty.`, "Write the answer text");
  }
  const updated: Question = { ...target, status: options.status ?? "answered", answer: text, validated_by: options.validated_by };
  return { ...list, questions: list.questions.map((q, i) => (i === index ? updated : q)) };
}
