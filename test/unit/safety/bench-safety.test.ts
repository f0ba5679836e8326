import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SAFETY_TEST_FILES, safetyRows, sumFigures } from "../../../bench/safety.ts";
import { REPO_ROOT } from "../../support/index.ts";

/*
 * The safety bench reports every figure a test records: the one list of files in bench/safety.ts
 * must hold every test file that calls recordFigure, and a failing file's figures still show.
 */

/** Test files (relative to the repo) whose source calls recordFigure. */
function recordingFiles(dir = path.join(REPO_ROOT, "test")): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "support" ? [] : recordingFiles(full);
    return entry.name.endsWith(".test.ts") && /\brecordFigure\(/.test(fs.readFileSync(full, "utf8"))
      ? [path.relative(REPO_ROOT, full)]
      : [];
  });
}

describe("bench/safety.ts", () => {
  it("lists every test file that records a figure, and only those", () => {
    expect([...SAFETY_TEST_FILES].sort()).toEqual(recordingFiles().sort());
  });

  it("adds up the parts of one figure and shows a failed file's figures and verdict", () => {
    const figures = sumFigures([
      { name: "a", tried: 3, through: 0 },
      { name: "b", tried: 1, through: 1 },
      { name: "a", tried: 1, through: 1 },
    ]);
    expect(figures).toEqual([
      { name: "a", tried: 4, through: 1 },
      { name: "b", tried: 1, through: 1 },
    ]);
    expect(
      safetyRows([
        { file: "test/e2e/x.test.ts", passed: false, figures },
        { file: "test/unit/y.test.ts", passed: false, figures: [] },
      ]),
    ).toEqual([
      "| a | 4 | **1** | 0 | `x.test.ts` (**failed**) |",
      "| b | 1 | **1** | 0 | `x.test.ts` (**failed**) |",
      "| no figure recorded: the test failed before it measured | – | – | 0 | `y.test.ts` (**failed**) |",
    ]);
  });
});
