import { describe, expect, it } from "vitest";
import { normalizeProse } from "../../../src/spec/fields.ts";
import { parseQuestions, parseTasks, serializeQuestions, serializeTasks, type QuestionList } from "../../../src/spec/index.ts";
import { extras, prose, random, TRICKY, taskList } from "./fuzz-content.ts";

function questionList(rand: () => number): QuestionList {
  return {
    preamble: "# Questions",
    questions: Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, i) => ({
      number: i + 1,
      title: `Q title ${i}`,
      source: "design (2026-02-06)",
      status: (["unanswered", "answered", "auto-answered", "declined"] as const)[i % 4] ?? "unanswered",
      question: prose(rand) || "Why?",
      answer: rand() < 0.5 ? prose(rand) : undefined,
      validated_by: rand() < 0.3 ? "secondary" : undefined,
      extra: extras(rand, 0.3, ["context"]),
    })),
  };
}

describe("round trips on generated content", () => {
  it.each(Array.from({ length: 200 }, (_, seed) => seed))("tasks, seed %i", (seed) => {
    const model = taskList(random(seed));
    const text = serializeTasks(model);
    const parsed = parseTasks(text).tasks;
    // parse∘serialize gives the model back, up to the canonical form of its multi-line values.
    expect(parsed).toEqual({
      ...model,
      tasks: model.tasks.map((t) => ({
        ...t,
        description: normalizeProse(t.description),
        extra: Object.fromEntries(Object.entries(t.extra).map(([k, v]) => [k, normalizeProse(v)])),
      })),
    });
    expect(serializeTasks(parsed)).toBe(text);
    expect(parseTasks(serializeTasks(parsed)).tasks).toEqual(parsed);
  });

  it.each(Array.from({ length: 100 }, (_, seed) => seed))("questions, seed %i", (seed) => {
    const text = serializeQuestions(questionList(random(seed)));
    const parsed = parseQuestions(text).questions;
    expect(serializeQuestions(parsed)).toBe(text);
    expect(parseQuestions(serializeQuestions(parsed)).questions).toEqual(parsed);
  });
});

describe("any text", () => {
  const LINES = [
    ...TRICKY,
    "## Task 1: A",
    "## Task 2 — B",
    "# Tasks",
    "- **id**: task-001",
    "- **status**: pending <!-- x -->",
    "- **parallel_group**: 2",
    "- **depends_on**: [task-001]",
    "- **description**: Do it",
    "- **description**:",
    "- **files**:",
    '  - "a.ts"',
    "- **estimate**: 2h",
    "## Q1: Q",
    "- **source**: design",
    "- **status**: answered",
  ];
  it.each(Array.from({ length: 200 }, (_, seed) => seed))("parses without throwing and serializes to a fixpoint, seed %i", (seed) => {
    const rand = random(1000 + seed);
    const text = Array.from({ length: 5 + Math.floor(rand() * 30) }, () => LINES[Math.floor(rand() * LINES.length)] ?? "").join("\n");
    const tasks = serializeTasks(parseTasks(text).tasks);
    expect(serializeTasks(parseTasks(tasks).tasks)).toBe(tasks);
    const questions = serializeQuestions(parseQuestions(text).questions);
    expect(serializeQuestions(parseQuestions(questions).questions)).toBe(questions);
  });
});
