import { describe, expect, it } from "vitest";
import { classifyComments, commentableLines, type ReviewComment } from "../../../src/pr-review/index.ts";

const lines = commentableLines(
  ["diff --git a/src/a.ts b/src/a.ts", "--- a/src/a.ts", "+++ b/src/a.ts", "@@ -1,2 +1,3 @@", " one", "+two", " three"].join("\n"),
);
const comment = (file: string, line: number): ReviewComment => ({ file, line, severity: "warning", title: "t", body: "b" });

describe("classifyComments", () => {
  it("numbers every comment from 1 and marks the ones inside a hunk", () => {
    const out = classifyComments([comment("src/a.ts", 2), comment("src/a.ts", 40), comment("src/other.ts", 1)], lines);
    expect(out.map((c) => [c.id, c.file, c.line, c.inDiff])).toEqual([
      [1, "src/a.ts", 2, true],
      [2, "src/a.ts", 40, false],
      [3, "src/other.ts", 1, false],
    ]);
  });

  it("accepts context lines and the model's path spellings", () => {
    const out = classifyComments([comment("./src/a.ts", 1), comment("b/src/a.ts", 3), comment("/src/a.ts", 2)], lines);
    expect(out.map((c) => [c.file, c.inDiff])).toEqual([
      ["src/a.ts", true],
      ["src/a.ts", true],
      ["src/a.ts", true],
    ]);
  });
});
