import { describe, expect, it } from "vitest";
import {
  Resolution,
  Validation,
  autoAnswerText,
  decide,
  needsValidation,
  parseQuestions,
  renderQuestionsReport,
} from "../../../../src/spec/index.ts";

const resolution = (over: Partial<Resolution> = {}): Resolution =>
  Resolution.parse({ answerable: true, answer: "Use pino.", confidence: "high", evidence: ["src/log.ts:3 imports pino"], ...over });
const accept = Validation.parse({ verdict: "accept", reason: "checked src/log.ts" });
const reject = Validation.parse({ verdict: "reject", reason: "src/legacy.ts uses console" });

describe("question auto-resolution decisions", () => {
  it("asks the secondary only about answerable, non-empty, not low-confidence answers", () => {
    expect(needsValidation(resolution())).toBe(true);
    expect(needsValidation(resolution({ confidence: "medium" }))).toBe(true);
    expect(needsValidation(resolution({ confidence: "low" }))).toBe(false);
    expect(needsValidation(resolution({ answerable: false }))).toBe(false);
    expect(needsValidation(resolution({ answer: "  " }))).toBe(false);
  });

  it("auto-answers only what the secondary accepted, with the evidence in the answer", () => {
    expect(decide(resolution(), accept)).toEqual({
      kind: "auto-answered",
      answer: "Use pino.\n\nEvidence:\n- src/log.ts:3 imports pino",
      reason: "checked src/log.ts",
    });
    expect(decide(resolution(), reject)).toEqual({ kind: "disagreed", proposed: "Use pino.", reason: "src/legacy.ts uses console" });
    expect(decide(resolution())).toMatchObject({ kind: "disagreed" });
  });

  it("declines when the primary says a person must decide, or is unsure", () => {
    expect(decide(resolution({ answerable: false, answer: "Product decision: which plans get it.", confidence: "low" }), accept)).toEqual({
      kind: "declined",
      note: "Product decision: which plans get it.",
    });
    expect(decide(resolution({ confidence: "low" }))).toEqual({ kind: "declined", note: "only low confidence: Use pino." });
  });

  it("writes an answer without evidence as the answer alone", () => {
    expect(autoAnswerText(resolution({ evidence: [] }))).toBe("Use pino.");
  });

  it("accepts envelopes without the optional fields", () => {
    expect(Resolution.parse({ answerable: false })).toEqual({ answerable: false, answer: "", confidence: "low", evidence: [] });
    expect(Validation.parse({ verdict: "accept" }).reason).toBe("");
  });
});

describe("renderQuestionsReport", () => {
  const list = parseQuestions(
    [
      "# Questions",
      "## Q1: Logger\n- **source**: research (2026-02-06)\n- **status**: auto-answered\n- **question**: Which logger?\n- **answer**: pino",
      "## Q2: Plans\n- **source**: requirements (2026-02-06)\n- **status**: unanswered\n- **question**: Which plans get rate limits?",
    ].join("\n\n"),
  ).questions.questions;
  const [q1, q2] = list as [(typeof list)[number], (typeof list)[number]];

  it("lists outcomes, then each open question with the exact command to answer it", () => {
    const text = renderQuestionsReport({
      slug: "rate-limiting",
      questionsFile: ".otto/specs/rate-limiting/questions.md",
      results: [
        { question: q1, outcome: { kind: "auto-answered", answer: "pino\n\nEvidence:\n- x", reason: "ok" } },
        { question: q2, outcome: { kind: "declined", note: "A product decision." } },
      ],
      remaining: [q2],
      notes: [],
      foldIn: "/otto-spec research --spec rate-limiting",
    });
    expect(text).toContain("## Questions of rate-limiting: 1 auto-answered, 1 left for you");
    expect(text).toContain("- **Q1** Logger: auto-answered (validated by the secondary model)\n  Answer: pino");
    expect(text).toContain("- **Q2** Plans: needs you: the primary model found no answer in the evidence\n  Why: A product decision.");
    expect(text).toContain('Answer with: `/otto-spec questions answer Q2 "<your answer>" --spec rate-limiting`');
    expect(text).toContain("Written: .otto/specs/rate-limiting/questions.md");
    expect(text.trim().split("\n").at(-1)).toBe('Next step: /otto-spec questions answer Q2 "<your answer>" --spec rate-limiting');
  });

  it("ends with the fold-in command when nothing is left", () => {
    const text = renderQuestionsReport({
      slug: "s",
      questionsFile: "q",
      results: [],
      remaining: [],
      notes: ["n"],
      foldIn: "/otto-spec design --spec s",
    });
    expect(text).toContain("Note: n");
    expect(text.endsWith("Next step: /otto-spec design --spec s")).toBe(true);
  });
});
