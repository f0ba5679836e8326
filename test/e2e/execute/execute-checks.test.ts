import { describe, expect, it } from "vitest";
import { slashCommand, useE2E } from "../../support/index.ts";
import { execModel, kindOf, writes } from "../execute/exec-model.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;
// No spec.verify: the checks are the project's own, detected from package.json.
const OTTO = {
  models: { primary: "mock/m1", secondary: "mock/m2" },
  spec: {
    max_verify_fixes: 1,
    task_briefing: false,
    review_gate: false,
    external_assumptions: false,
    domain_hardening: false,
    docs_alignment: false,
  },
};
const pkg = JSON.stringify({ name: "greeting", private: true, scripts: { test: "node test.js" } }, null, 2);
// The project's test: fails once the executor's greeting says "bad".
const TEST_JS = [
  'const fs = require("node:fs");',
  'const file = "src/task-001.txt";',
  'if (fs.existsSync(file) && fs.readFileSync(file, "utf8").includes("bad")) {',
  '  console.error("1 failing: src/task-001.txt is a bad greeting");',
  "  process.exit(1);",
  "}",
  'console.log("1 passing");',
  "",
].join("\n");
const files = (test: string) => ({
  ...specFiles(tasksMd([["task-001", "pending", 1, [], "Write the greeting"]])),
  "package.json": pkg,
  "test.js": test,
});
// npm's update check would reach for the registry.
const env = { npm_config_update_notifier: "false" };

describe("/otto-spec execute with no spec.verify: the project's detected checks", () => {
  // One served OpenCode for the file (useE2E shareServer).
  const e2e = useE2E({}, { shareServer: true });

  it("a detected `npm test` that the task breaks fails the task after the fix session, and the summary names it", async () => {
    const ws = await e2e.workspace({ files: files(TEST_JS), ottoConfig: OTTO, env });
    e2e.model.script(
      ...slashCommand("otto_spec"),
      execModel(ws.project, (kind, req) =>
        kind === "execute-task" ? writes(ws.project, req, { "src/task-001.txt": "bad\n" }, "Wrote the greeting.") : undefined,
      ),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 180_000 });
    expect(run.stdout, run.stderr).toContain("Checks: npm test (detected: package.json scripts.test)");
    expect(run.stdout).toContain("Baseline: npm test: passed");
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(tasks).toContain("- **status**: failed");
    expect(tasks).toContain("- **last_error**: spec.verify failed after 1 fix: `npm test` exit 1");
    // The fix session saw the project's own failure, run by otto.
    const fixes = e2e.model.turns().filter((r) => kindOf(r) === "phase-fix" && r.lastRole === "user");
    expect(fixes).toHaveLength(1);
    expect(fixes[0]?.lastUser).toContain("src/task-001.txt is a bad greeting");
    const body = await ws.repo.git(["log", "-1", "--format=%B"]);
    expect(body).toContain("Otto-Verify: failed");
    expect(body).toContain("Verification: FAILED after 1 fix (npm test: exit 1)");
    expect(e2e.model.unmatched()).toEqual([]);
  }, 240_000);

  it("a detected check that already fails before the run is pre-existing: the task completes", async () => {
    const failing = 'console.error("Tests  2 failed | 3 passed (5)");\nprocess.exit(1);\n';
    const ws = await e2e.workspace({ files: files(failing), ottoConfig: OTTO, env });
    e2e.model.script(...slashCommand("otto_spec"), execModel(ws.project));
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 180_000 });
    expect(run.stdout, run.stderr).toContain("Checks: npm test (detected: package.json scripts.test)");
    expect(run.stdout).toContain("Baseline: npm test: exit 1 (pre-existing, 2 failures)");
    expect(run.stdout).toContain("Progress: 1/1 completed");
    expect(ws.readFile(`${SPEC}/tasks.md`)).toContain("- **status**: completed");
    expect(e2e.model.turns().some((r) => kindOf(r) === "phase-fix")).toBe(false);
    const body = await ws.repo.git(["log", "-1", "--format=%B"]);
    expect(body).toContain("Otto-Verify: passed");
    expect(body).toContain("npm test: failed before the work too (2 failures), not worse (2 now)");
    expect(e2e.model.unmatched()).toEqual([]);
  }, 240_000);
});
