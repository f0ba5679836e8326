import { describe, expect, it } from "vitest";
import { compareToBaseline, describeBaseline, failureCount, isBlocking, type CheckResult } from "../../../src/workspace/index.ts";

const run = (command: string, exitCode: number, output = ""): CheckResult => ({
  command,
  exitCode,
  passed: exitCode === 0,
  timedOut: false,
  durationMs: 1,
  output,
});

describe("failureCount", () => {
  it("reads the counts test runners print", () => {
    expect(failureCount(" Test Files  1 failed (1)\n      Tests  2 failed | 1 passed (3)\n")).toBe(2);
    expect(failureCount("\u001b[31mTests:       3 failed\u001b[39m, 2 passed, 5 total\n")).toBe(3);
    expect(failureCount("FAILED tests/test_a.py::test_x\n=================== 1 failed, 4 passed in 0.05s ===================\n")).toBe(1);
    expect(failureCount("==== 3 passed, 2 failed, 1 error in 1.20s (0:00:01) ====")).toBe(2);
    // cargo prints one line per test binary.
    expect(
      failureCount("test result: FAILED. 1 passed; 2 failed; 0 ignored\n…\ntest result: FAILED. 0 passed; 1 failed; 0 ignored\n"),
    ).toBe(3);
    expect(failureCount("  5 passing (10ms)\n  2 failing\n")).toBe(2);
  });

  it("counts go's FAIL lines: failed tests, else packages that did not build", () => {
    const tests =
      "--- FAIL: TestA (0.00s)\n    a_test.go:5: boom\n    --- FAIL: TestA/sub (0.00s)\nFAIL\nFAIL\texample.com/x\t0.002s\nFAIL\n";
    expect(failureCount(tests)).toBe(2);
    expect(failureCount("# example.com/y\n./y.go:3:1: syntax error\nFAIL\texample.com/y [build failed]\nFAIL\n")).toBe(1);
  });

  it("is undefined when the output names no count", () => {
    expect(failureCount("Error: lint found problems\n")).toBeUndefined();
    expect(failureCount("FAIL\n")).toBeUndefined();
  });
});

describe("compareToBaseline", () => {
  it("exit code 0 → non-zero is a new failure; a check without a baseline run too", () => {
    const [c] = compareToBaseline([run("npm test", 0)], [run("npm test", 1)]);
    expect(c).toMatchObject({ verdict: "new_failure", line: "npm test: exit 1 (new failure: it passed before the work)" });
    expect(isBlocking(c!)).toBe(true);
    expect(compareToBaseline([], [run("make lint", 2)])[0]?.verdict).toBe("new_failure");
  });

  it("an already-failing check is worse only with more failures", () => {
    const before = run("npm test", 1, "Tests  2 failed | 8 passed (10)");
    const same = compareToBaseline([before], [run("npm test", 1, "Tests  2 failed | 9 passed (11)")])[0]!;
    expect(same).toMatchObject({
      verdict: "pre_existing",
      before: 2,
      after: 2,
      line: "npm test: failed before the work too (2 failures), not worse (2 now)",
    });
    expect(isBlocking(same)).toBe(false);
    const worse = compareToBaseline([before], [run("npm test", 1, "Tests  3 failed | 8 passed (11)")])[0]!;
    expect(worse).toMatchObject({ verdict: "worse", before: 2, after: 3 });
    expect(isBlocking(worse)).toBe(true);
  });

  it("without counts, still failing counts as not worse, and the line says so", () => {
    const [c] = compareToBaseline([run("npm run lint", 1, "3 problems")], [run("npm run lint", 1, "5 problems")]);
    expect(c?.verdict).toBe("pre_existing");
    expect(c?.line).toContain("no failure count in its output, so still failing counts as not worse");
  });

  it("passing now: passed, or fixed when it failed before", () => {
    expect(compareToBaseline([run("go vet ./...", 0)], [run("go vet ./...", 0)])[0]?.verdict).toBe("passed");
    expect(compareToBaseline([run("go test ./...", 1)], [run("go test ./...", 0)])[0]?.verdict).toBe("fixed");
  });
});

describe("describeBaseline", () => {
  it("names what already failed", () => {
    expect(describeBaseline([run("npm test", 1, "Tests  1 failed (1)"), run("npm run lint", 0)])).toBe(
      "baseline: npm test: exit 1 (pre-existing, 1 failure), npm run lint: passed",
    );
    expect(describeBaseline([])).toBe("baseline: no checks");
  });
});
