import { describe, expect, it } from "vitest";
import type { PrComment } from "../../../src/pr/index.ts";
import { renderExistingComments } from "../../../src/pr-review/index.ts";

const c = (extra: Partial<PrComment>): PrComment => ({
  id: "1",
  kind: "inline",
  author: "ana",
  body: "why?",
  createdAt: "",
  resolved: false,
  ...extra,
});

describe("renderExistingComments", () => {
  it("lists open comments with where and who, markers stripped, long bodies cut", () => {
    const text = renderExistingComments([
      c({ path: "src/a.ts", line: 4, body: "<!-- otto -->\n**Error: Bug**\n\nleaks" }),
      c({ kind: "conversation", author: "bo", body: "x".repeat(400) }),
      c({ path: "src/b.ts", resolved: true, body: "done" }),
    ]);
    expect(text?.split("\n")).toEqual(["- src/a.ts:4 (ana): **Error: Bug** leaks", `- conversation (bo): ${"x".repeat(299)}…`]);
  });

  it("is undefined without open comments", () => {
    expect(renderExistingComments([c({ resolved: true })])).toBeUndefined();
    expect(renderExistingComments([])).toBeUndefined();
  });
});
