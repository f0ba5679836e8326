import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ResolvedChecks } from "../../../src/analysis/index.ts";
import { executeSpec, runOneTask } from "../../../src/execute/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { of, statuses, useFakeExecute } from "./fake-execute.ts";

const ONE = tasksMd([["t1", "pending", 1, [], "Only"]]);
const CHECK = "sh check.sh";
// Prints vitest's summary line with the number in failures.txt; fails when it is not 0.
const SCRIPT = 'n=$(cat failures.txt); echo "      Tests  $n failed | 1 passed"; test "$n" = 0\n';
const DETECTED: ResolvedChecks = {
  key: "spec.verify",
  origin: "detected",
  checks: [{ command: CHECK, source: "package.json scripts.test" }],
  notes: [],
};
const SETTINGS = {
  externalAssumptions: false,
  domainHardening: false,
  docsAlignment: false,
  verify: [CHECK],
  checks: DETECTED,
  maxVerifyFixes: 0,
};

describe("executeSpec: the baseline of the checks", () => {
  const setup = useFakeExecute();

  it("a check that already failed before the run and is not worse is pre-existing: the task completes, the run says so", async () => {
    const f = await setup(
      ONE,
      (call) => (call.kind === "execute-task" ? (f.write("src/t1.txt", "x\n"), { text: "Wrote src/t1.txt." }) : undefined),
      SETTINGS,
    );
    f.write("check.sh", SCRIPT);
    f.write("failures.txt", "2\n");
    const { output } = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed" });
    expect(of(f.calls, "phase-fix")).toHaveLength(0);
    expect(output).toContain("Checks: sh check.sh (detected: package.json scripts.test)");
    expect(output).toContain(
      "Baseline: sh check.sh: exit 1 (pre-existing, 2 failures) (a check that already failed fails the tasks only if it gets worse)",
    );
    expect(output).toContain("verification: sh check.sh: failed before the work too (2 failures), not worse (2 now)");
    const [head] = await f.log();
    expect(head).toContain("Verification: passed, failures pre-existing and not worse");
    expect(head).toContain("Otto-Verify: passed");
    // The run record: the baseline and its (trimmed) output.
    const baseline = f.history().find((h) => h.startsWith("baseline-"));
    expect(baseline).toBeDefined();
    const record = fs.readFileSync(path.join(f.specDir, "history", baseline ?? ""), "utf8");
    expect(record).toContain("- **checks**: sh check.sh (detected: package.json scripts.test)");
    expect(record).toContain("- **baseline**: sh check.sh: exit 1 (pre-existing, 2 failures)");
    expect(record).toContain("Tests  2 failed | 1 passed");
  });

  it("more failures than the baseline is worse: the task fails verification", async () => {
    const f = await setup(
      ONE,
      (call) => (call.kind === "execute-task" ? (f.write("failures.txt", "3\n"), { text: "Changed it." }) : undefined),
      SETTINGS,
    );
    f.write("check.sh", SCRIPT);
    f.write("failures.txt", "2\n");
    const { output } = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "failed" });
    expect(output).toContain("verification: sh check.sh: worse than before the work (2 failures before, 3 now)");
    expect(f.tasks()).toContain("- **last_error**: spec.verify failed: `sh check.sh` exit 1\n");
  });

  it("a check that passed before and fails after is a new failure; task run runs the baseline too", async () => {
    const f = await setup(
      ONE,
      (call) => (call.kind === "execute-task" ? (f.write("failures.txt", "1\n"), { text: "Broke it." }) : undefined),
      SETTINGS,
    );
    f.write("check.sh", SCRIPT);
    f.write("failures.txt", "0\n");
    const one = await runOneTask(f.deps, undefined, "t1");
    expect(statuses(f)).toEqual({ t1: "failed" });
    expect(one.output).toContain("Verification: FAILED (sh check.sh: exit 1)");
    expect(one.output).toContain("Checks: sh check.sh (detected: package.json scripts.test)");
    expect(one.output).toContain("Baseline: sh check.sh: passed");
  });
});
