import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, toolCall, useE2E } from "../../support/index.ts";
import { attempts, callExecute, execModel, kindOf } from "../execute/exec-model.ts";
import { executeTool } from "../execute/drive.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";

const SPEC = ".otto/specs/greeting";
const REASON = "stopped: called bash `echo hi` with the same arguments 5 times";

describe("otto_spec_execute through opencode serve: loops that end", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("an executor that makes the same call over and over is stopped at the 5th, and the same stop twice ends the task although 15 retries were allowed", async () => {
    const ws = await e2e.workspace({
      files: specFiles(tasksMd([["task-001", "pending", 1, [], "Loop"]])),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        // A stuck executor that otto failed to stop would end at the timeout instead.
        spec: {
          task_timeout: "60s",
          max_task_retries: 15,
          task_briefing: false,
          external_assumptions: false,
          domain_hardening: false,
          review_gate: false,
          docs_alignment: false,
        },
      },
    });
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    // The executor runs `echo hi` every time it is asked, the first turn and after every result.
    e2e.model.script(
      ...callExecute(),
      execModel(ws.project, (kind) =>
        kind === "execute-task" ? toolCall("bash", { command: "echo hi", description: "Say hi" }) : undefined,
      ),
    );

    const run = await executeTool(client);
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(tasks).toContain("- **status**: failed");
    expect(tasks).toContain(`- **last_error**: failed the same way twice in a row: ${REASON} (after 2 attempts)`);
    expect(run.output).toContain(`- task-001: failed the same way twice in a row: ${REASON} (2 attempts;`);
    expect(attempts(e2e.model.requests, "task-001")).toHaveLength(2);
    const history = fs
      .readdirSync(path.join(ws.project, SPEC, "history"))
      .filter((f) => f.startsWith("run-"))
      .sort();
    expect(history).toEqual(["run-001.md", "run-002.md"]);
    expect(ws.readFile(`${SPEC}/history/run-001.md`)).toContain(`- **result**: failed: ${REASON}\n`);
    expect(ws.readFile(`${SPEC}/history/run-002.md`)).toContain(
      `- **result**: failed: ${REASON} (the same failure as attempt 1: no more retries)\n`,
    );

    // Each attempt: four calls ran, the fifth was refused, and the model was not asked again after it.
    const executor = e2e.model.requests.filter((r) => kindOf(r) === "execute-task");
    const ran = executor.flatMap((r) => r.toolResults).filter((t) => t.content.trim() === "hi");
    expect(ran).toHaveLength(8);
    const refused = executor.flatMap((r) => r.toolResults).filter((t) => t.content.includes("Otto stopped: called bash `echo hi`"));
    expect(refused).toHaveLength(0);
    expect(executor.length).toBeLessThanOrEqual(10);
  }, 300_000);
});
