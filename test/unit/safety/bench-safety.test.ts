import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bubblewrapInstalled, SAFETY_TEST_FILES, safetyRows, safetyVerdict, sumFigures } from "../../../bench/safety.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
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
      safetyRows(
        [
          { file: "test/e2e/x.test.ts", passed: false, figures },
          { file: "test/unit/y.test.ts", passed: false, figures: [] },
        ],
        { bwrap: true },
      ),
    ).toEqual([
      "| a | 4 | **1** | 0 | `x.test.ts` (**failed**) |",
      "| b | 1 | **1** | 0 | `x.test.ts` (**failed**) |",
      "| no figure recorded: the test failed before it measured | – | – | 0 | `y.test.ts` (**failed**) |",
    ]);
  });

  it("a file whose measuring tests were skipped is not measured, never 'nothing got through'; with bubblewrap installed it fails the run", () => {
    const results = [
      { file: "test/e2e/measured.test.ts", passed: true, figures: [{ name: "a", tried: 2, through: 0 }] },
      { file: "test/e2e/sandbox/sandbox.test.ts", passed: true, figures: [] },
    ];
    expect(safetyRows(results, { bwrap: false })[1]).toBe(
      "| not measured: the file's measuring tests were skipped (no sandbox on this machine?) | – | – | 0 | `sandbox.test.ts` (skipped) |",
    );
    const without = safetyVerdict(results, { bwrap: false });
    expect(without.summary).toBe(
      "Nothing measured got through. Not measured (no sandbox on this machine): `sandbox.test.ts`. Every test passed.",
    );
    expect(without.failed).toEqual([]);
    const withBwrap = safetyVerdict(results, { bwrap: true });
    expect(withBwrap.failed).toEqual(["`sandbox.test.ts`"]);
    expect(withBwrap.summary).toMatch(
      /^Nothing measured got through\. \*\*Not measured although bubblewrap is installed: `sandbox.test.ts`\.\*\* \*\*Failed: `sandbox.test.ts`\.\*\*$/,
    );
    expect(safetyVerdict([results[0]!], { bwrap: true }).summary).toBe("Nothing got through. Every test passed.");
    expect(safetyVerdict([{ ...results[0]!, figures: [{ name: "a", tried: 2, through: 1 }] }], { bwrap: true }).summary).toBe(
      "**Got through: 1 of 2 (a).** Every test passed.",
    );
  });

  // .ci/run installs bubblewrap; without it the probe has nothing to find.
  it.skipIf(!bubblewrapInstalled())(
    "where bubblewrap is installed (command -v bwrap), otto finds a sandbox, so the sandbox's figure files do not skip",
    () => {
      expect(detectSandbox().kind).not.toBe("none");
    },
  );
});
