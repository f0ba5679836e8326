import { describe, expect, it } from "vitest";
import { extractOpenQuestions, newQuestions, parseQuestions } from "../../../../src/spec/index.ts";
import { questionsOutsideDocument } from "../../../../src/spec/pipeline/open-questions.ts";
import { REQUIREMENTS } from "./fake-spec.ts";

describe("extractOpenQuestions", () => {
  it("reads the entries the requirements prompt asks for, splitting the question from its context", () => {
    expect(extractOpenQuestions(REQUIREMENTS)).toEqual([
      {
        title: "Limit per key",
        question: "What is the default limit per API key?",
        context: "Why it matters: sizing. Assumed until answered: 100/min.",
      },
      { title: "Storage", question: "Should counters live in Redis?", context: "Why it matters: deployment." },
    ]);
  });

  it("reads the design.md variant, continuation lines, and stops at the next section", () => {
    const design = [
      "## Open Questions",
      "- **Token TTL:** How long do tokens live?",
      "  Assumed for this design: 15 minutes.",
      "* Which header carries the key",
      "",
      "## Requirements Traceability",
      "- **Not a question**: x",
    ].join("\n");
    expect(extractOpenQuestions(design)).toEqual([
      { title: "Token TTL", question: "How long do tokens live?", context: "Assumed for this design: 15 minutes." },
      { title: "Which header carries the key", question: "Which header carries the key" },
    ]);
  });

  it("gives nothing for None., an empty section or no section", () => {
    expect(extractOpenQuestions("# R\n\n## Open Questions\nNone.\n")).toEqual([]);
    expect(extractOpenQuestions("# R\n\n## Open Questions\n- None.\n")).toEqual([]);
    expect(extractOpenQuestions("# R\n\n## Open Questions\n")).toEqual([]);
    expect(extractOpenQuestions("# R\n\n## Summary\n- **A**: b?")).toEqual([]);
  });
});

describe("newQuestions", () => {
  const existing = parseQuestions(
    "# Questions\n\n## Q1: Limit per key\n- **source**: requirements (2026-02-05)\n- **status**: answered\n- **question**: Old wording?\n- **answer**: 100\n",
  ).questions;

  it("skips questions already recorded (same title or text, whatever their status) and tags the source", () => {
    const added = newQuestions(existing, extractOpenQuestions(REQUIREMENTS), "design (2026-02-06)");
    expect(added).toEqual([
      {
        title: "Storage",
        source: "design (2026-02-06)",
        question: "Should counters live in Redis?",
        extra: { context: "Why it matters: deployment." },
      },
    ]);
  });

  it("skips duplicates within one batch", () => {
    const twice = [
      { title: "A", question: "Same?" },
      { title: "B", question: "same" },
    ];
    expect(newQuestions({ preamble: "", questions: [] }, twice, "x")).toHaveLength(1);
  });
});

describe("questionsOutsideDocument", () => {
  it("reads the questions after (or before) the document block, never inside it", () => {
    const reply = `Split task 2.\nBEGIN_DOCUMENT\n# Tasks\n\n## Open Questions\n- **Inside**: not read?\nEND_DOCUMENT\n\n## Open Questions\n- **Outside**: read? Why it matters: scope.`;
    expect(questionsOutsideDocument(reply)).toEqual([{ title: "Outside", question: "read?", context: "Why it matters: scope." }]);
  });

  it("reads nothing from a reply without markers (it is all document)", () => {
    expect(questionsOutsideDocument(REQUIREMENTS)).toEqual([]);
  });
});
