import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { delay, hang, slashCommand, text, useE2E } from "../../support/index.ts";
import { attempts, envelope, execModel, kindOf, writes } from "../execute/exec-model.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;

describe("/otto-spec execute, headless (opencode run --command otto-spec -- execute)", () => {
  const e2e = useE2E();

  it("runs a two-phase spec to committed, verified code: parallel tasks, retries after TASK_FAILED and a timeout, verify fixed, docs", async () => {
    const ws = await e2e.workspace({
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "Write the first greeting"],
          ["task-002", "pending", 1, [], "Write the second greeting"],
          ["task-003", "pending", 2, ["task-001", "task-002"], "Combine the greetings"],
        ]),
      ),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: {
          task_timeout: "8s",
          max_task_retries: 2,
          verify: ["test ! -f src/task-001.txt || test -f verified.txt || (echo 'verified.txt is missing'; exit 3)"],
        },
      },
    });
    const { project } = ws;
    let harvested = false;
    e2e.model.script(
      ...slashCommand("otto_spec"),
      execModel(project, (kind, req) => {
        const task = /- \*\*id\*\*: (\S+)/.exec(req.lastUser)?.[1];
        if (kind === "execute-task" && task === "task-001" && !req.lastRole?.startsWith("tool")) {
          // Slow on purpose, so the parallel task-002 starts while this one is still answering.
          return delay(1_500, writes(project, req, { "src/task-001.txt": "hello\n" }, "Wrote src/task-001.txt."));
        }
        if (kind === "execute-task" && task === "task-002" && req.lastRole === "user") {
          const n = attempts(e2e.model.requests, "task-002").length;
          if (n === 1) return text("I looked for the config and found none.\nTASK_FAILED: could not find the greeting config");
          if (n === 2) return hang();
        }
        if (kind === "phase-fix") return writes(project, req, { "verified.txt": "ok\n" }, "fixed: verified.txt was missing (created it)");
        if (kind === "question-harvest" && !harvested) {
          harvested = true;
          return envelope({
            questions: [
              {
                title: "Greeting format",
                question: "Should greetings end with a newline?",
                context: "task-001 assumed yes.",
                source: "task-001",
              },
            ],
          });
        }
        return undefined;
      }),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 240_000 });
    expect(run.exitCode, run.stderr).toBe(0);

    // The summary (the tool's output, echoed by the model) and the task statuses.
    expect(run.stdout).toContain(`## otto-spec execute: ${SLUG}`);
    expect(run.stdout).toMatch(/\| 1 \| task-002 \| completed \| 3 \|/);
    expect(run.stdout).toContain("Progress: 3/3 completed");
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(tasks.match(/- \*\*status\*\*: completed/g)).toHaveLength(3);

    // One commit per phase plus one for the docs, each with its trailer; nothing left uncommitted.
    const subjects = (await ws.repo.log()).map((c) => c.subject);
    expect(subjects).toEqual([
      `otto(${SLUG}): align documentation`,
      `otto(${SLUG}): phase 2: task-003`,
      `otto(${SLUG}): phase 1: task-001, task-002`,
      "Initial commit",
    ]);
    const bodies = await ws.repo.git(["log", "--format=%B%x1e"]);
    expect(bodies).toContain(`Otto-Phase: ${SLUG}/1\nOtto-Verify: passed`);
    expect(bodies).toContain("Verification: passed after 1 fix");
    expect(bodies).toContain(`Otto-Docs: ${SLUG}`);
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    expect(ws.readFile("src/task-003.txt")).toBe("task-003\n");
    expect(ws.readFile("docs/usage.md")).toContain("# Usage");
    expect(ws.readFile(`${SPEC}/questions.md`)).toContain("## Q1: Greeting format");

    // history/run-NNN.md per attempt: 1 + 3 + 1.
    const history = fs.readdirSync(path.join(project, SPEC, "history"));
    expect(history.filter((f) => f.startsWith("run-")).sort()).toEqual([
      "run-001.md",
      "run-002.md",
      "run-003.md",
      "run-004.md",
      "run-005.md",
    ]);
    const runs = history.filter((f) => f.startsWith("run-")).map((f) => fs.readFileSync(path.join(project, SPEC, "history", f), "utf8"));
    expect(runs.filter((r) => r.includes("- **result**: failed: TASK_FAILED: could not find the greeting config"))).toHaveLength(1);
    expect(runs.filter((r) => r.includes("- **result**: failed: timed out:"))).toHaveLength(1);
    expect(runs.every((r) => r.includes("## Dialog") && r.includes("- **model**: mock/m1 (otto-executor)"))).toBe(true);

    // Parallel tasks overlapped (from the scripted model's request times); retries were told why.
    const [first] = attempts(e2e.model.requests, "task-001");
    const [a1, a2, a3] = attempts(e2e.model.requests, "task-002");
    expect(a1?.startedAt).toBeLessThan(first?.endedAt ?? 0);
    expect(a2?.lastUser).toContain("Attempt 1 failed: TASK_FAILED: could not find the greeting config");
    expect(a3?.lastUser).toContain("Attempt 2 failed: timed out:");
    // Briefed by the primary (read-only), reviewed by the secondary.
    expect(
      e2e.model
        .turns()
        .filter((r) => kindOf(r) === "task-briefing")
        .every((r) => r.model === "m1" && r.system.includes("rigorous, independent reviewer")),
    ).toBe(true);
    expect(
      e2e.model
        .turns()
        .filter((r) => kindOf(r) === "phase-review")
        .map((r) => r.model),
    ).toEqual(["m2", "m2"]);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 300_000);
});
