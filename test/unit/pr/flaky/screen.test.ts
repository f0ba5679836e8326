import { describe, expect, it } from "vitest";
import { judgeCheck, screenFailure, type CheckFacts } from "../../../../src/pr/fix/screen.ts";
import { logRuns } from "../../../../src/pr/fix/screen-failure.ts";

const fp = (id: string) => ({ id, lines: [`FAIL ${id}`] });
const MAIN = "b".repeat(40);
const facts = (over: Partial<CheckFacts> = {}): CheckFacts => ({ name: "unit", fingerprint: fp("f1"), knownFlake: 0, ...over });
const opts = { rerunDone: false, rerun: false };

describe("is it the PR's failure?", () => {
  it("inherited: the default branch's newest run fails with the same fingerprint", () => {
    const red = facts({ base: { state: "failure", sha: MAIN, fingerprint: fp("f1") } });
    expect(screenFailure([red], opts)).toEqual({ kind: "inherited" });
    // Main fails differently, or passes: the PR's own.
    expect(screenFailure([facts({ base: { state: "failure", sha: MAIN, fingerprint: fp("f2") } })], opts).kind).toBe("pr");
    expect(screenFailure([facts({ base: { state: "success", sha: MAIN } })], opts).kind).toBe("pr");
    // One check inherited, another the PR's own: fixed.
    expect(screenFailure([red, facts({ name: "lint", fingerprint: fp("f3") })], opts).kind).toBe("pr");
  });

  it("flaky: a fingerprint the ledger knows, before anything else; or passing in the sandbox before any re-run", () => {
    expect(screenFailure([facts({ knownFlake: 2 })], opts)).toEqual({ kind: "flaky", how: "known" });
    expect(screenFailure([facts({ knownFlake: 2 })], { ...opts, rerunDone: true })).toEqual({ kind: "flaky", how: "known" });
    const passes = facts({ local: { commands: ["npm test"], passed: true } });
    expect(screenFailure([passes], opts)).toEqual({ kind: "flaky", how: "local" });
    // After a re-run of this head failed again, passing locally no longer makes it a flake.
    expect(screenFailure([passes], { ...opts, rerunDone: true }).kind).toBe("pr");
    // No fingerprint: nothing the ledger could know.
    expect(judgeCheck(facts({ fingerprint: undefined, knownFlake: 3 }), opts)).toBe("unknown");
  });

  it("reproduced locally: the PR's own, and never a re-run to tell", () => {
    const fails = facts({ local: { commands: ["npm test"], passed: false } });
    const screening = screenFailure([fails], { rerunDone: false, rerun: true });
    expect(screening.kind).toBe("pr");
    expect(screening.kind === "pr" && screening.findings[0]).toBe(
      "- unit: reproduced locally: `npm test` fails in otto's sandbox on the PR's head; first seen: not in the flake ledger",
    );
  });

  it("probe: pr.flakes.rerun re-runs once per head when nothing tells; then the analysis hears it failed again", () => {
    expect(screenFailure([facts()], { rerunDone: false, rerun: true })).toEqual({ kind: "probe" });
    const again = screenFailure([facts({ base: { state: "success", sha: MAIN } })], { rerunDone: true, rerun: true });
    expect(again.kind === "pr" && again.findings[0]).toBe(
      `- unit: not run locally (its log shows none of the project's checks); the default branch's newest run (${MAIN.slice(0, 7)}) passes; failed again after a re-run of the failed jobs on this commit; first seen: not in the flake ledger`,
    );
    expect(screenFailure([facts()], opts).kind).toBe("pr");
  });

  it("a CI log runs a command when a line is the command (GitHub's Run, a shell prompt, a script's contents)", () => {
    expect(logRuns("2026-02-06T10:00:00.0000000Z ##[group]Run npm test\nok", "npm test")).toBe(true);
    expect(logRuns("$ npm test", "npm test")).toBe(true);
    expect(logRuns("Script contents:\nnpm test\n", "npm test")).toBe(true);
    expect(logRuns("Starting: npm test", "npm test")).toBe(false);
    expect(logRuns("##[group]Run npm test -- --shard 1", "npm test")).toBe(false);
  });
});
