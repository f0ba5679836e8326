import { describe, expect, it } from "vitest";
import { describeVerdict, failingHeadline, judgeRun, type CheckResult } from "../../../src/workspace/index.ts";

const check = (command: string, exitCode: number, output = ""): CheckResult => ({
  command,
  exitCode,
  passed: exitCode === 0,
  timedOut: false,
  durationMs: 10,
  output,
});

describe("a run's verdict: every check at its end", () => {
  it("verified only when every check passes at the end", () => {
    const verdict = judgeRun([check("npm test", 0), check("npm run lint", 0)], [check("npm test", 1)]);
    expect(verdict.verified).toBe(true);
    expect(describeVerdict(verdict)).toBe("verified (npm test, npm run lint passed at the end)");
  });

  it("a check failing at the end makes it unverified, and says when it failed before the run too", () => {
    const verdict = judgeRun(
      [check("npm test", 1, "Tests  2 failed"), check("npm run lint", 2)],
      [check("npm test", 1, "Tests  2 failed"), check("npm run lint", 0)],
    );
    expect(verdict.verified).toBe(false);
    expect(verdict.failing).toEqual([
      { command: "npm test", ended: "exit 1", before: true },
      { command: "npm run lint", ended: "exit 2", before: false },
    ]);
    expect(describeVerdict(verdict)).toBe("unverified: `npm test` exit 1 (it failed before the run too), `npm run lint` exit 2");
    expect(failingHeadline(verdict)).toBe("npm test, npm run lint fail");
  });

  it("without a baseline every failure is the run's", () => {
    expect(judgeRun([check("make test", 2)]).failing).toEqual([{ command: "make test", ended: "exit 2", before: false }]);
  });
});
