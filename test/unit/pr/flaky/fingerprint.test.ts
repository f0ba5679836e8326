import { describe, expect, it } from "vitest";
import { failureLines, fingerprintLog, normaliseLine } from "../../../../src/pr/fix/fingerprint.ts";

const RUN_A = [
  "2026-02-06T10:00:01.1234567Z npm install progress 1",
  "2026-02-06T10:01:00.0000000Z FAIL /home/runner/work/app/app/test/math.test.js (1.234 s)",
  "2026-02-06T10:01:00.0000000Z   ● add › adds two numbers: expected 3, received -1",
  "2026-02-06T10:01:00.0000000Z       at Object.<anonymous> (/home/runner/work/app/app/test/math.test.js:4:20)",
  "2026-02-06T10:01:00.0000000Z Tests: 1 failed, 3 passed, 4 total",
  "2026-02-06T10:03:00.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");

// The same failure on another runner, another day, another duration and another random value.
const RUN_B = [
  "2026-03-01T08:00:00.0000000Z FAIL /Users/runner/work/app/app/test/math.test.js (0.9 s)",
  "2026-03-01T08:00:00.0000000Z   ● add › adds two numbers: expected 7, received -2",
  "2026-03-01T08:00:00.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");

describe("failure fingerprints", () => {
  it("the same failure on another runner, day, duration and value has the same fingerprint", () => {
    const a = fingerprintLog(RUN_A);
    const b = fingerprintLog(RUN_B);
    expect(a?.id).toMatch(/^[0-9a-f]{16}$/);
    expect(a?.id).toBe(b?.id);
    expect(a?.lines).toEqual(["FAIL math.test.js <duration>", "● add › adds two numbers: expected N, received -N"]);
  });

  it("another failing test has another fingerprint", () => {
    const other = RUN_B.replace("adds two numbers", "adds negative numbers");
    expect(fingerprintLog(other)?.id).not.toBe(fingerprintLog(RUN_B)?.id);
  });

  it("a log that only says that something failed has no fingerprint", () => {
    expect(fingerprintLog("step 1\n##[error]Process completed with exit code 1.\nnpm ERR! code ELIFECYCLE")).toBeUndefined();
    expect(failureLines("all good\n")).toEqual([]);
  });

  it("normalises paths, hex ids, times and numbers; keeps relative paths", () => {
    expect(normaliseLine("Error: D:\\a\\1\\s\\src\\x.ts failed at 2026-02-06T10:00:00Z after 12ms (id 0a1b2c3d4e)")).toBe(
      "Error: x.ts failed at <time> after <duration> (id <hex>)",
    );
    expect(normaliseLine("FAIL test/math.test.js")).toBe("FAIL test/math.test.js");
    expect(normaliseLine("--- FAIL: TestAdd (0.00s)")).toBe("--- FAIL: TestAdd <duration>");
  });

  it("recognises pytest, go, cargo and mocha failures", () => {
    expect(failureLines("FAILED tests/test_math.py::test_add - assert 3 == -1")).toEqual([
      "FAILED tests/test_math.py::test_add - assert N == -N",
    ]);
    expect(failureLines("--- FAIL: TestAdd (0.01s)\nok other")).toEqual(["--- FAIL: TestAdd <duration>"]);
    expect(failureLines("thread 'add' panicked at src/lib.rs:4:5")).toEqual(["thread 'add' panicked at src/lib.rs:N:N"]);
    expect(failureLines("  1) add\n       adds:\n     AssertionError: expected 3 to equal -1")).toEqual([
      "N) add",
      "AssertionError: expected N to equal -N",
    ]);
  });
});
