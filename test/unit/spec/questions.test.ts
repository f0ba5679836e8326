import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isOttoError, type OttoError } from "../../../src/core/errors.ts";
import { answerQuestion, appendQuestions, parseQuestions, QuestionList, serializeQuestions } from "../../../src/spec/index.ts";

const fixture = (name: string): string => fs.readFileSync(fileURLToPath(new URL(`../../fixtures/spec/${name}`, import.meta.url)), "utf8");

function clean(text: string): QuestionList {
  const { questions, problems } = parseQuestions(text);
  expect(problems).toEqual([]);
  return questions;
}

function thrown(fn: () => unknown): OttoError {
  try {
    fn();
  } catch (error) {
    if (isOttoError(error)) return error;
    throw error;
  }
  throw new Error("expected an OttoError");
}

describe("parseQuestions / serializeQuestions", () => {
  it("round-trips the canonical example byte for byte", () => {
    const text = fixture("questions-design-doc.md");
    const list = clean(text);
    expect(serializeQuestions(list)).toBe(text);
    expect(list.questions.map((q) => [q.number, q.title, q.source, q.status, q.validated_by])).toEqual([
      [1, "Database migration strategy", "design (2026-02-06)", "answered", undefined],
      [2, "Token expiration policy", "task-003 (2026-02-06)", "unanswered", undefined],
      [3, "Error response format", "phase-1-harvest (2026-02-06)", "auto-answered", "secondary"],
    ]);
    expect(list.questions[1]?.answer).toBeUndefined();
  });

  it("reads a model-shaped file into the canonical one, keeping multi-line answers and extra fields", () => {
    const list = clean(fixture("questions-messy-model.md"));
    expect(serializeQuestions(list)).toBe(fixture("questions-messy-model.expected.md"));
    const [q1, q2] = list.questions;
    expect(q1?.question).toBe("Do we need refresh tokens,\nor are short-lived access tokens enough?");
    expect(q1?.answer).toBe(
      'Yes. Use refresh tokens:\n\n- access token: 15 minutes\n- refresh token: 30 days, rotated on use\n\n```json\n{ "refresh_token": "..." }\n```',
    );
    expect(q1).toMatchObject({ status: "auto-answered", validated_by: "secondary" });
    expect(q2).toMatchObject({
      number: 2,
      title: "Key storage",
      status: "unanswered",
      extra: { context: "the design assumes an env var" },
    });
  });

  it.each(["questions-design-doc.md", "questions-messy-model.md", "questions-messy-model.expected.md"])(
    "%s: serialize is stable and parse∘serialize is the identity",
    (name) => {
      const first = parseQuestions(fixture(name)).questions;
      const text = serializeQuestions(first);
      expect(parseQuestions(text).questions).toEqual(first);
      expect(serializeQuestions(parseQuestions(text).questions)).toBe(text);
      expect(QuestionList.safeParse(first).success).toBe(true);
    },
  );

  it("reports missing fields and unknown statuses with lines", () => {
    const { problems } = parseQuestions(
      "# Questions\n\n## Q1:\n- **status**: maybe\n\n## Q2: Fine\n- **source**: design\n- **status**: answered\n- **question**:\n",
    );
    expect(problems).toEqual([
      { line: 3, message: "Q1 has no title; write '## Q1: <short title>'." },
      { line: 3, message: "Q1 has no 'source' field; add a line like '- **source**: design (2026-02-06)' under its heading." },
      { line: 3, message: "Q1 has no 'question' field; add a line like '- **question**: <the question>' under its heading." },
      { line: 4, message: "Q1 has status 'maybe'; use one of: unanswered, answered, auto-answered, declined." },
      { line: 6, message: "Q2 has an empty question; write it out." },
    ]);
  });

  it("gives an empty file the # Questions title", () => {
    expect(parseQuestions("").questions).toEqual({ preamble: "# Questions", questions: [] });
    expect(serializeQuestions({ preamble: "", questions: [] })).toBe("# Questions\n");
  });
});

describe("appendQuestions", () => {
  const base = clean(fixture("questions-design-doc.md"));

  it("numbers new questions after the highest one and defaults them to unanswered", () => {
    const { list, added, skipped } = appendQuestions(base, [
      { title: "Clock skew", source: "phase-2-harvest (2026-02-07)", question: "How much clock skew should token validation allow?" },
      { title: "Audit log", source: "task-004 (2026-02-07)", question: "Should logins be written to the audit log?\nWhich fields?" },
    ]);
    expect(added.map((q) => [q.number, q.status])).toEqual([
      [4, "unanswered"],
      [5, "unanswered"],
    ]);
    expect(skipped).toEqual([]);
    const text = serializeQuestions(list);
    expect(text).toContain(
      "## Q5: Audit log\n- **source**: task-004 (2026-02-07)\n- **status**: unanswered\n- **question**: Should logins be written to the audit log?\n  Which fields?\n",
    );
    expect(parseQuestions(text).questions).toEqual(list);
  });

  it("skips exact duplicates (same normalized text) of existing and of earlier new questions", () => {
    const again = { title: "Expiry", source: "design", question: "  what should the JWT token   expiration time be " };
    const fresh = { title: "Fresh", source: "design", question: "Is RS256 required?" };
    const { added, skipped } = appendQuestions(base, [again, fresh, { ...fresh, question: "is rs256 required" }]);
    expect(added.map((q) => [q.number, q.title])).toEqual([[4, "Fresh"]]);
    expect(skipped.map((q) => q.title)).toEqual(["Expiry", "Fresh"]);
  });

  it("starts at Q1 in an empty list", () => {
    expect(
      appendQuestions({ preamble: "# Questions", questions: [] }, [{ title: "A", source: "design", question: "Why?" }]).added[0]?.number,
    ).toBe(1);
  });
});

describe("answerQuestion", () => {
  const base = clean(fixture("questions-design-doc.md"));

  it("records a multi-line answer by 'Q2' or 2", () => {
    const answered = answerQuestion(base, "Q2", "15 minutes.\n\n- refresh tokens last 30 days");
    expect(answered.questions[1]).toMatchObject({
      status: "answered",
      answer: "15 minutes.\n\n- refresh tokens last 30 days",
      validated_by: undefined,
    });
    expect(answerQuestion(base, 2, "15 minutes.\n\n- refresh tokens last 30 days")).toEqual(answered);
    expect(answerQuestion(base, "q2", "x")).toEqual(answerQuestion(base, " Q2 ", "x"));
    expect(parseQuestions(serializeQuestions(answered)).questions).toEqual(answered);
    expect(base.questions[1]?.status).toBe("unanswered");
  });

  it("records auto-answers with the validating model and drops a stale validated_by otherwise", () => {
    const auto = answerQuestion(base, 2, "15 minutes", { status: "auto-answered", validated_by: "secondary" });
    expect(auto.questions[1]).toMatchObject({ status: "auto-answered", validated_by: "secondary" });
    expect(answerQuestion(auto, 2, "10 minutes").questions[1]).toMatchObject({ status: "answered", validated_by: undefined });
    expect(answerQuestion(base, 3, "No.", { status: "declined" }).questions[2]?.status).toBe("declined");
  });

  it.each(["Q9", 9, "two", ""])("rejects the unknown id %j and lists the valid ones", (ref) => {
    const error = thrown(() => answerQuestion(base, ref, "x"));
    expect(error.code).toBe("question_not_found");
    expect(error.message).toBe(`No question '${String(ref)}': the questions are Q1, Q2, Q3.`);
    expect(error.fix).toBe("Use one of: Q1, Q2, Q3");
  });

  it("explains an empty list and an empty answer", () => {
    expect(thrown(() => answerQuestion({ preamble: "# Questions", questions: [] }, 1, "x")).message).toBe(
      "No question '1': questions.md has no questions yet.",
    );
    expect(thrown(() => answerQuestion(base, 1, "  \n ")).code).toBe("empty_answer");
  });
});
