import { formatField } from "../fields.ts";
import { splitLines, trimBlankLines } from "../sections.ts";
import type { Question, QuestionList } from "./schema.ts";

/** Writes questions.md in its canonical format (docs/spec.md); parsing the output gives the same model back. */
export function serializeQuestions(list: QuestionList): string {
  const preamble = trimBlankLines(splitLines(list.preamble)).join("\n") || "# Questions";
  return `${[preamble, ...list.questions.map(serializeQuestion)].join("\n\n")}\n`;
}

export function serializeQuestion(q: Question): string {
  const lines = [
    `## Q${q.number}: ${q.title.replace(/\s*\n\s*/g, " ").trim()}`.trimEnd(),
    `- **source**: ${q.source.replace(/\s+/g, " ").trim()}`.trimEnd(),
    `- **status**: ${q.status}`,
    ...formatField("question", q.question),
  ];
  if (q.answer?.trim()) lines.push(...formatField("answer", q.answer));
  if (q.validated_by?.trim()) lines.push(`- **validated_by**: ${q.validated_by.trim()}`);
  for (const [key, value] of Object.entries(q.extra)) lines.push(...formatField(key, value));
  return lines.join("\n");
}
