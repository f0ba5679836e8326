import { normalizeProse, stripComments } from "../fields.ts";
import type { Problem } from "../problems.ts";
import { scanSections, splitLines, type ScanRules, type ScannedField, type ScannedSection } from "../sections.ts";
import { QUESTION_FIELDS, QUESTION_HEADING, QUESTION_STATUSES, type Question, type QuestionList, type QuestionStatus } from "./schema.ts";

const KNOWN = new Set<string>(QUESTION_FIELDS);
const SCALARS = new Set(["source", "status", "validated_by"]);

export const QUESTION_SCAN_RULES: ScanRules = {
  heading: QUESTION_HEADING,
  known: KNOWN,
  isProse: (key) => !SCALARS.has(key),
};

const STATUS_WORDS: Readonly<Record<string, QuestionStatus>> = {
  unanswered: "unanswered",
  open: "unanswered",
  pending: "unanswered",
  new: "unanswered",
  answered: "answered",
  resolved: "answered",
  "auto-answered": "auto-answered",
  auto_answered: "auto-answered",
  "auto answered": "auto-answered",
  autoanswered: "auto-answered",
  declined: "declined",
  rejected: "declined",
  "won't answer": "declined",
  wontfix: "declined",
};

export function readQuestionStatus(raw: string): QuestionStatus | undefined {
  return STATUS_WORDS[stripComments(raw).replace(/[*`]/g, "").trim().toLowerCase()];
}

/**
 * Parses questions.md. Never throws: what cannot be read becomes a Problem (1-based line) and the
 * question gets a placeholder value.
 */
export function parseQuestions(text: string): { questions: QuestionList; problems: Problem[] } {
  const scan = scanSections(splitLines(text), QUESTION_SCAN_RULES);
  const problems: Problem[] = [];
  const questions = scan.sections.map((section) => readQuestion(section, problems));
  const preamble = scan.preamble.join("\n") || "# Questions";
  return { questions: { preamble, questions }, problems: problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };
}

function readQuestion(section: ScannedSection, problems: Problem[]): Question {
  const number = Number(section.heading[1]);
  const title = (section.heading[2] ?? "").trim();
  const label = `Q${number}`;
  const headingLine = section.start + 1;
  const report = (line: number, message: string): void => void problems.push({ line, message });
  const fields = new Map<string, ScannedField>();
  const extra: Record<string, string> = {};

  if (number < 1) report(headingLine, `${label}: question numbers start at 1; renumber it.`);
  if (title === "") report(headingLine, `${label} has no title; write '## ${label}: <short title>'.`);
  for (const stray of section.stray) {
    report(stray.index + 1, `${label}: line ${stray.index + 1} is not part of any field; move it into the question or answer.`);
  }
  for (const field of section.fields) {
    const first = fields.get(field.key);
    if (first) {
      report(field.start + 1, `${label} has a second '${field.key}' field (the first is on line ${first.start + 1}); keep only one.`);
      continue;
    }
    fields.set(field.key, field);
    if (!KNOWN.has(field.key)) extra[field.key] = prose(field) ?? "";
  }
  const scalar = (key: string): string | undefined => {
    const field = fields.get(key);
    return field ? stripComments([field.value, ...field.rest].join(" ")).replace(/\s+/g, " ") || undefined : undefined;
  };
  const missing = (key: string, example: string): void =>
    report(headingLine, `${label} has no '${key}' field; add a line like '- **${key}**: ${example}' under its heading.`);

  const source = scalar("source");
  if (source === undefined) missing("source", "design (2026-02-06)");
  const rawStatus = scalar("status");
  const status = rawStatus === undefined ? undefined : readQuestionStatus(rawStatus);
  if (rawStatus === undefined) missing("status", "unanswered");
  else if (!status) {
    report((fields.get("status")?.start ?? 0) + 1, `${label} has status '${rawStatus}'; use one of: ${QUESTION_STATUSES.join(", ")}.`);
  }
  const question = prose(fields.get("question"));
  if (question === undefined && fields.has("question")) report(headingLine, `${label} has an empty question; write it out.`);
  else if (question === undefined) missing("question", "<the question>");

  return {
    number,
    title,
    source: source ?? "",
    status: status ?? "unanswered",
    question: question ?? "",
    answer: prose(fields.get("answer")),
    validated_by: scalar("validated_by"),
    extra,
  };
}

/** A multi-line value; undefined when the field is absent or empty. */
function prose(field: ScannedField | undefined): string | undefined {
  return field ? normalizeProse([field.value, ...field.rest].join("\n")) || undefined : undefined;
}
