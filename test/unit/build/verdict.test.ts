import { describe, expect, it } from "vitest";
import {
  blockingChecks,
  buildVerdict,
  judgeChecks,
  keptResult,
  preExistingLines,
  unverifiedHeadline,
  KEPT_OUTPUT,
} from "../../../src/build/index.ts";
import type { CheckResult } from "../../../src/workspace/index.ts";

const run = (command: string, failures?: number): CheckResult => ({
  command,
  exitCode: failures === undefined ? 0 : 1,
  passed: failures === undefined,
  timedOut: false,
  durationMs: 1,
  output: failures === undefined ? "ok" : ` Tests  ${failures} failed | 3 passed (${failures + 3})`,
});

describe("build verdict against the baseline", () => {
  it("a check that failed before the build and is not worse blocks nothing; new and worse failures do", () => {
    const baseline = [run("npm test", 2), run("npm run lint")];
    expect(judgeChecks(baseline, [run("npm test", 2), run("npm run lint")])).toEqual({ passed: false, blocking: false });
    expect(judgeChecks(baseline, [run("npm test", 1), run("npm run lint")])).toEqual({ passed: false, blocking: false });
    expect(judgeChecks(baseline, [run("npm test", 3), run("npm run lint")])).toEqual({ passed: false, blocking: true });
    expect(judgeChecks(baseline, [run("npm test", 2), run("npm run lint", 1)])).toEqual({ passed: false, blocking: true });
    expect(blockingChecks(baseline, [run("npm test", 2), run("npm run lint", 1)]).map((c) => c.command)).toEqual(["npm run lint"]);
    expect(judgeChecks(baseline, [run("npm test"), run("npm run lint")])).toEqual({ passed: true, blocking: false });
  });

  it("without a baseline every failure is the build's (a resumed loop of an older state)", () => {
    expect(judgeChecks([], [run("npm test", 2)])).toEqual({ passed: false, blocking: true });
    expect(blockingChecks([], [run("npm test", 2), run("npm run lint")]).map((c) => c.command)).toEqual(["npm test"]);
  });

  it("names the pre-existing failures for the confirm prompt, in the build's words", () => {
    const lines = preExistingLines([run("npm test", 2)], [run("npm test", 2), run("npm run lint")]);
    expect(lines).toEqual(["npm test: failed before the build too (2 failures), not worse (2 now)"]);
  });

  it("is verified only when every check passes at the end; a pre-existing failure leaves it unverified", () => {
    expect(buildVerdict([], [])).toBeUndefined();
    expect(buildVerdict([run("npm test")], [run("npm test", 2)])).toMatchObject({ verified: true, failing: [] });
    const unverified = buildVerdict([run("npm test", 2), run("npm run lint")], [run("npm test", 2), run("npm run lint")]);
    expect(unverified).toMatchObject({ verified: false, failing: [{ command: "npm test", ended: "exit 1", before: true }] });
    if (!unverified) throw new Error("no verdict");
    expect(unverifiedHeadline(unverified)).toBe("npm test fails (it failed before the build too)");
    expect(unverifiedHeadline({ verified: false, results: [], failing: [{ command: "npm test", ended: "exit 1", before: false }] })).toBe(
      "npm test fails",
    );
  });

  it("keeps the end of a long output, where the runner prints its failure count", () => {
    const long = { ...run("npm test", 2), output: `${"x".repeat(KEPT_OUTPUT * 2)}\n Tests  2 failed | 3 passed (5)` };
    const kept = keptResult(long);
    expect(kept.output.length).toBe(KEPT_OUTPUT);
    expect(kept.output).toContain("Tests  2 failed");
  });
});
