import { describe, expect, it } from "vitest";
import { normalizeProse } from "../../../src/spec/fields.ts";
import { parseQuestions, parseTasks, serializeQuestions, serializeTasks, type QuestionList, type TaskList } from "../../../src/spec/index.ts";

/** Small deterministic PRNG (mulberry32) so failures reproduce. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lines that look like structure: fields, headings, fences, separators, comments, odd indentation. */
const TRICKY = [
  "- item", "  - nested item", "- **status**: completed", "- **files**: [x.ts]", "- **note**: looks like an extra",
  "- **Note**: capitalised", "* **id**: task-999", "## Task 9: not a heading", "## Q9: not a question", "### Sub heading",
  "---", "***", "```", "```ts", "~~~", "", "   ", "plain text", "<!-- comment -->", "\tTabbed", "    code line",
  "1. numbered", "- **answer**: fake", "- **question**: fake", "trailing spaces  ",
];

function prose(rand: () => number): string {
  const pick = (): string => TRICKY[Math.floor(rand() * TRICKY.length)] ?? "";
  return Array.from({ length: 1 + Math.floor(rand() * 8) }, pick).join("\n");
}

function extras(rand: () => number, chance: number, keys: readonly string[]): Record<string, string> {
  return rand() < chance ? Object.fromEntries(keys.map((k) => [k, prose(rand)])) : {};
}

function taskList(rand: () => number): TaskList {
  const n = 1 + Math.floor(rand() * 4);
  return {
    preamble: rand() < 0.5 ? "# Tasks" : "# Tasks\n\nSome intro.\n\n---",
    tasks: Array.from({ length: n }, (_, i) => ({
      id: `task-${i + 1}`,
      title: rand() < 0.2 ? "" : `Title ${i}`,
      number: i + 1,
      status: (["pending", "running", "completed", "failed", "skipped"] as const)[i % 5] ?? "pending",
      parallel_group: 1 + Math.floor(rand() * 3),
      depends_on: i > 0 && rand() < 0.5 ? [`task-${i}`] : [],
      description: prose(rand),
      files: rand() < 0.5 ? ["a.ts", "dir/b c.ts"] : [],
      extra: extras(rand, 0.5, ["note", "last_error"]),
    })),
  };
}

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
    ...TRICKY, "## Task 1: A", "## Task 2 — B", "# Tasks", "- **id**: task-001", "- **status**: pending <!-- x -->",
    "- **parallel_group**: 2", "- **depends_on**: [task-001]", "- **description**: Do it", "- **description**:",
    "- **files**:", '  - "a.ts"', "- **estimate**: 2h", "## Q1: Q", "- **source**: design", "- **status**: answered",
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
