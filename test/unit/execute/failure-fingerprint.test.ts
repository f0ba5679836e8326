import { describe, expect, it } from "vitest";
import { failureFingerprint, normalizeFailureText, sameFailure, type Failure } from "../../../src/execute/failure-fingerprint.ts";

describe("normalizeFailureText", () => {
  it("drops what changes from one run to the next", () => {
    const a = normalizeFailureText(
      "\u001b[31mThe model did not finish within 900s\u001b[0m (model mock/m1, session ses_3f2a9bcd01XyZ) at 2026-11-26T21:50:03.120Z, pid 481234, commit 3fa9c0d1e2, file /tmp/otto-e2e-x81kq/repo/a.ts took 1.5 ms",
    );
    const b = normalizeFailureText(
      "The model did not finish within 12s  (model mock/m1, session ses_9QQ81aa)\n at 2026-11-27 08:01:59, pid 77123, commit 0badc0ffee42, file /var/folders/9x/T/otto-abc/repo/a.ts took 300ms",
    );
    expect(a).toBe(b);
    expect(a).toBe(
      "the model did not finish within <duration> (model mock/m1, session <id>) at <time>, pid <n>, commit <hash>, file <tmp> took <duration>",
    );
  });

  it("keeps what tells one failure from another: short numbers, words, paths in the tree", () => {
    expect(normalizeFailureText("expected 3 to equal 4")).not.toBe(normalizeFailureText("expected 3 to equal 5"));
    expect(normalizeFailureText("src/a.ts:12: missing semicolon")).not.toBe(normalizeFailureText("src/b.ts:12: missing semicolon"));
    // Words made of hex letters are words, not hashes.
    expect(normalizeFailureText("deadbeef facade accede")).toBe("deadbeef facade accede");
    expect(normalizeFailureText("UUID 123e4567-e89b-12d3-a456-426614174000 uuid 00000000-0000-4000-8000-000000000000")).toBe(
      "uuid <id> uuid <id>",
    );
  });
});

describe("failureFingerprint", () => {
  it("two timeouts are the same failure, whatever their messages say", () => {
    expect(sameFailure({ kind: "timeout" }, { kind: "timeout" })).toBe(true);
    expect(sameFailure({ kind: "timeout" }, { kind: "no_evidence" })).toBe(false);
  });

  it("the executor's TASK_FAILED reasons compare without their volatile parts", () => {
    const a: Failure = { kind: "task_failed", reason: "npm install failed after 31s: ECONNREFUSED 127.0.0.1:48213" };
    const b: Failure = { kind: "task_failed", reason: "npm install failed after 4s:  ECONNREFUSED 127.0.0.1:51877" };
    expect(sameFailure(a, b)).toBe(true);
    expect(sameFailure(a, { kind: "task_failed", reason: "the tests fail: expected 3 got 4" })).toBe(false);
    // The same text as a session error is a different failure.
    expect(sameFailure(a, { kind: "error", message: a.reason })).toBe(false);
  });

  it("session errors compare by code and message", () => {
    const stopped = (n: number, code = "tool_loop"): Failure => ({
      kind: "error",
      code,
      message: `stopped: called bash \`npm test\` with the same arguments 5 times (session ses_${n}abc)`,
    });
    expect(sameFailure(stopped(1), stopped(2))).toBe(true);
    expect(sameFailure(stopped(1), stopped(1, "model_error"))).toBe(false);
  });

  it("a failed check is its command, its exit code and the end of its output", () => {
    const check = (exitCode: number, output: string, command = "npm test"): Failure => ({ kind: "check", command, exitCode, output });
    const out = (ms: number, failing: string) => `${"noise\n".repeat(50)}FAIL ${failing}\nTests: 1 failed, 9 passed\nTime: ${ms} ms\n`;
    expect(sameFailure(check(1, out(812, "greets.test.ts")), check(1, out(1290, "greets.test.ts")))).toBe(true);
    expect(sameFailure(check(1, out(812, "greets.test.ts")), check(1, out(812, "parts.test.ts")))).toBe(false);
    expect(sameFailure(check(1, "boom"), check(2, "boom"))).toBe(false);
    expect(sameFailure(check(1, "boom"), check(1, "boom", "npm run lint"))).toBe(false);
    expect(sameFailure(check(1, "boom", "npm  test "), check(1, "boom"))).toBe(true);
    // Only the end counts: what scrolled out of the last lines does not tell them apart.
    expect(sameFailure(check(1, `start A\n${"x\n".repeat(30)}`), check(1, `start B\n${"x\n".repeat(30)}`))).toBe(true);
    expect(failureFingerprint({ kind: "check", command: "npm test", exitCode: -1, timedOut: true })).toBe("check:npm test:timed out:");
  });

  it("nothing is the same as the first failure", () => {
    expect(sameFailure(undefined, { kind: "timeout" })).toBe(false);
  });
});
