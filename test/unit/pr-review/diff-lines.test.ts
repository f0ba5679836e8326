import { describe, expect, it } from "vitest";
import { commentableLines } from "../../../src/pr-review/index.ts";

const DIFF = [
  "diff --git a/src/auth.ts b/src/auth.ts",
  "index 1111111..2222222 100644",
  "--- a/src/auth.ts",
  "+++ b/src/auth.ts",
  "@@ -10,4 +10,5 @@ export function login() {",
  "   const a = 1;",
  "-  const b = 2;",
  "+  const b = 3;",
  "+  const c = 4;",
  "   return a;",
  " }",
  "@@ -40 +41 @@",
  "-old",
  "+new",
  "diff --git a/docs/new.md b/docs/new.md",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/docs/new.md",
  "@@ -0,0 +1,2 @@",
  "+# New",
  "+--- not a header",
  "diff --git a/gone.txt b/gone.txt",
  "deleted file mode 100644",
  "--- a/gone.txt",
  "+++ /dev/null",
  "@@ -1,2 +0,0 @@",
  "-one",
  "-two",
  "diff --git a/img.png b/img.png",
  "Binary files a/img.png and b/img.png differ",
  'diff --git "a/sp ace/\\303\\251t\\303\\251.ts" "b/sp ace/\\303\\251t\\303\\251.ts"',
  '--- "a/sp ace/\\303\\251t\\303\\251.ts"',
  '+++ "b/sp ace/\\303\\251t\\303\\251.ts"',
  "@@ -1 +1,2 @@",
  " keep",
  "+added",
  "\\ No newline at end of file",
  "",
].join("\n");

describe("commentableLines", () => {
  const lines = commentableLines(DIFF);

  it("keeps added and context lines of each hunk on the new side", () => {
    expect([...(lines.get("src/auth.ts") ?? [])]).toEqual([10, 11, 12, 13, 14, 41]);
  });

  it("handles new files, including added lines that look like headers", () => {
    expect([...(lines.get("docs/new.md") ?? [])]).toEqual([1, 2]);
  });

  it("has no lines for deleted and binary files", () => {
    expect(lines.has("gone.txt")).toBe(false);
    expect(lines.has("/dev/null")).toBe(false);
    expect(lines.has("img.png")).toBe(false);
  });

  it("unquotes paths git escapes", () => {
    expect([...(lines.get("sp ace/été.ts") ?? [])]).toEqual([1, 2]);
  });

  it("is empty for an empty diff", () => {
    expect(commentableLines("").size).toBe(0);
  });
});
