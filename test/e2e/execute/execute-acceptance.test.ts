import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, useE2E } from "../../support/index.ts";
import { attempts, execModel, writes } from "../execute/exec-model.ts";
import { SPEC_DOCS, taskIdOf } from "../execute/kinds.ts";

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;

/** Tests first: task-001 writes the test, task-002 the code, checked by the test (its `verify`). */
const TASKS = `# Tasks

## Task 1: Write the greeting test
- **id**: task-001
- **status**: pending
- **parallel_group**: 1
- **depends_on**: []
- **description**: Write check.js: it fails unless greeting.txt says hello.
- **files**: ["check.js"]

## Task 2: Write the greeting
- **id**: task-002
- **status**: pending
- **parallel_group**: 2
- **depends_on**: [task-001]
- **description**: Write greeting.txt so the test passes.
- **files**: ["greeting.txt"]
- **verify**: \`npm test\`
`;

const CHECK_JS = `const fs = require("node:fs");\nconst text = fs.existsSync("greeting.txt") ? fs.readFileSync("greeting.txt", "utf8").trim() : "";\nif (text !== "hello") { console.error("expected hello, got " + JSON.stringify(text)); process.exit(1); }\nconsole.log("greeting ok");\n`;

describe("acceptance checks per task (tasks.md `verify`)", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("tests first: the code task completes only when its check passes; a failing check is the next attempt's error", async () => {
    const files: Record<string, string> = {
      "README.md": "# greeting\n",
      "package.json": JSON.stringify({ name: "greeting", scripts: { test: "node check.js" } }, null, 2),
    };
    for (const [name, text] of Object.entries(SPEC_DOCS)) files[`${SPEC}/${name}`] = text;
    files[`${SPEC}/tasks.md`] = TASKS;
    const ws = await e2e.workspace({
      files,
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: { verify: [], review_gate: false, external_assumptions: false, domain_hardening: false, docs_alignment: false },
      },
    });
    const { project } = ws;
    e2e.model.script(
      ...slashCommand("otto_spec"),
      execModel(project, (kind, req) => {
        if (kind !== "execute-task") return undefined;
        if (taskIdOf(req.lastUser) === "task-001") return writes(project, req, { "check.js": CHECK_JS }, "Wrote check.js.");
        // The first attempt at the code is wrong; the retry is told the check's output.
        const wrong = attempts(e2e.model.requests, "task-002").length === 1;
        return writes(project, req, { "greeting.txt": wrong ? "bye\n" : "hello\n" }, "Wrote greeting.txt.");
      }),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 240_000 });
    expect(run.exitCode, run.stderr).toBe(0);

    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    const task2 = tasks.slice(tasks.indexOf("## Task 2"));
    expect(task2).toContain("- **status**: completed");
    expect(task2).toMatch(/- \*\*acceptance\*\*: `npm test` exit 0 \(/);
    expect(task2).toContain("- **verify**: `npm test`");
    expect(ws.readFile("greeting.txt")).toBe("hello\n");

    const retry = attempts(e2e.model.requests, "task-002")[1];
    expect(retry?.lastUser).toContain("failed: acceptance check `npm test` exit 1");
    expect(retry?.lastUser).toContain('expected hello, got \\"bye\\"'.replace(/\\/g, ""));
    const history = fs
      .readdirSync(path.join(project, SPEC, "history"))
      .filter((f) => f.startsWith("run-"))
      .map((f) => fs.readFileSync(path.join(project, SPEC, "history", f), "utf8"));
    const records = history.filter((h) => h.includes("task-002"));
    expect(records).toHaveLength(2);
    expect(
      records.some(
        (r) => /- \*\*result\*\*: failed: acceptance check `npm test` exit 1/.test(r) && /- \*\*acceptance\*\*: `npm test` exit 1/.test(r),
      ),
    ).toBe(true);
    expect(records.some((r) => r.includes("- **result**: completed") && /- \*\*acceptance\*\*: `npm test` exit 0/.test(r))).toBe(true);
  });

  it("a run whose checks still fail at its end is unverified: its first line names the check, no PR is recommended, --pr opens none", async () => {
    // The test is committed, the code is not: the common test-first spec with one task.
    const files: Record<string, string> = {
      "README.md": "# greeting\n",
      "package.json": JSON.stringify({ name: "greeting", scripts: { test: "node check.js" } }, null, 2),
      "check.js": CHECK_JS,
    };
    for (const [name, text] of Object.entries(SPEC_DOCS)) files[`${SPEC}/${name}`] = text;
    files[`${SPEC}/tasks.md`] =
      `# Tasks\n\n## Task 1: Make the greeting test pass\n- **id**: task-001\n- **status**: pending\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: Write greeting.txt so npm test passes.\n- **files**: ["greeting.txt"]\n`;
    const ws = await e2e.workspace({
      files,
      remote: true,
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: { review_gate: false, external_assumptions: false, domain_hardening: false, docs_alignment: false, max_verify_fixes: 0 },
      },
    });
    const { project } = ws;
    e2e.model.script(
      ...slashCommand("otto_spec"),
      execModel(project, (kind, req) =>
        kind === "execute-task" ? writes(project, req, { "greeting.txt": "bye\n" }, "Wrote greeting.txt.") : undefined,
      ),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute", "--pr"], { timeoutMs: 240_000 });
    expect(run.exitCode, run.stderr).toBe(0);

    // The baseline spares the task (the failure was there before), but the run is not done.
    expect(ws.readFile(`${SPEC}/tasks.md`)).toContain("- **status**: completed");
    // The first line: the run, its spend, and that it is unverified with the failing check.
    expect(run.stdout).toMatch(new RegExp(`## otto-spec execute: ${SLUG} — [^\n]* tokens, [^\n]* — unverified: npm test fails`));
    expect(run.stdout).toMatch(/Verdict: unverified: `npm test` exit 1 \(it failed before the run too\)/);
    expect(run.stdout).toContain("the run is unverified: npm test fails at its end (it failed before the run too");
    expect(run.stdout).not.toContain("open a pull request");
    expect(run.stdout).toContain("Not opened: the run is unverified (npm test fails at its end)");
    // Nothing was pushed: the remote has only main.
    expect((await ws.repo.git(["ls-remote", "--heads", "origin"])).trim().split("\n")).toHaveLength(1);
  });
});
