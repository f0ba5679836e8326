import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, text, useE2E } from "../../support/index.ts";
import { attempts, callExecute, execModel } from "../execute/exec-model.ts";
import { executeTool, ottoSpec, toasts, toolTitles } from "../execute/drive.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;
const statusOf = (tasks: string, id: string) => new RegExp(`- \\*\\*id\\*\\*: ${id}\\n- \\*\\*status\\*\\*: (\\w+)`).exec(tasks)?.[1];

describe("otto_spec_execute through opencode serve: failures, skips, task run, progress", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("a task that always fails the same way ends failed after two attempts with its dependents skipped while other phases run; task run and execute finish the job", async () => {
    const ws = await e2e.workspace({
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "Broken greeting"],
          ["task-002", "pending", 1, [], "Fine greeting"],
          ["task-003", "pending", 2, ["task-001"], "Needs the broken one"],
          ["task-004", "pending", 2, ["task-002"], "Needs the fine one"],
        ]),
      ),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        // Far more retries than the task gets: failing the same way twice ends them.
        spec: { max_task_retries: 15, task_briefing: false, external_assumptions: false, domain_hardening: false },
      },
    });
    const { client, events } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    let broken = true;
    e2e.model.script(
      ...callExecute(),
      { ...slashCommand("otto_spec")[0]!, times: Infinity },
      { ...slashCommand("otto_spec")[1]!, times: Infinity },
      execModel(ws.project, (kind, req) =>
        kind === "execute-task" && broken && req.lastUser.includes("- **id**: task-001")
          ? text("Tried.\nTASK_FAILED: the greeting service is down")
          : undefined,
      ),
    );

    // --- The typed tool, as the otto agent calls it.
    const first = await executeTool(client);
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(["task-001", "task-002", "task-003", "task-004"].map((id) => statusOf(tasks, id))).toEqual([
      "failed",
      "completed",
      "skipped",
      "completed",
    ]);
    expect(tasks).toContain(
      "- **last_error**: failed the same way twice in a row: TASK_FAILED: the greeting service is down (after 2 attempts)",
    );
    expect(tasks).toContain("- **skip_reason**: depends on task-001, which failed");
    expect(attempts(e2e.model.requests, "task-001")).toHaveLength(2);
    expect(attempts(e2e.model.requests, "task-003")).toHaveLength(0);
    expect(first.title).toBe(`otto-spec execute ${SLUG}: 2/4 completed, 1 failed`);
    expect(first.output).toContain(
      "Failed:\n- task-001: failed the same way twice in a row: TASK_FAILED: the greeting service is down (2 attempts; .otto/specs/greeting/history/run-00",
    );
    const history = fs
      .readdirSync(path.join(ws.project, SPEC, "history"))
      .map((f) => ws.readFile(`${SPEC}/history/${f}`))
      .join("\n");
    expect(history).toContain("- **result**: failed: TASK_FAILED: the greeting service is down\n");
    expect(history).toContain(
      "- **result**: failed: TASK_FAILED: the greeting service is down (the same failure as attempt 1: no more retries)\n",
    );
    expect(first.output).toContain("Skipped:\n- task-003: depends on task-001, which failed");
    expect(first.output).toContain(
      `Next step: look at the failures above (history/ has each attempt's dialog), then /otto-spec task run --spec ${SLUG} --id task-001`,
    );
    expect((await ws.repo.log()).map((c) => c.subject)).toEqual([
      `otto(${SLUG}): align documentation`,
      `otto(${SLUG}): phase 2: task-003, task-004`,
      `otto(${SLUG}): phase 1: task-001, task-002`,
      "Initial commit",
    ]);
    // Live progress in the tool's title, toasts at phase boundaries, child sessions deleted.
    const titles = toolTitles(events.all, "otto_spec_execute");
    expect(titles).toContain("Phase 1: 0/2 done, 2 running, 0 failed");
    expect(titles).toContain("Phase 1: 1/2 done, 0 running, 1 failed");
    expect(titles).toContain("Phase 2: 0/2 done, 1 running, 0 failed");
    expect(
      toasts(events.all).some((t) => /^Phase 1 committed: [0-9a-f]{7} \(verification none, 1 task\(s\) not completed\)$/.test(t)),
    ).toBe(true);
    const sessions = (await client.session.list({ throwOnError: true })).data;
    expect(sessions.map((s) => s.id)).toEqual([first.sessionID]);

    // --- /otto-spec task run retries the failed task alone and commits it.
    broken = false;
    const one = await ottoSpec(client, "task run --id task-001");
    expect(one.output).toContain("## otto-spec task run: task-001 completed (1 attempt");
    expect(one.title).toMatch(/^otto-spec task run task-001: completed, committed [0-9a-f]{7}$/);
    expect(await ws.repo.git(["log", "-1", "--format=%B"])).toContain(`Otto-Task: ${SLUG}/task-001`);

    // --- execute again: only the task the failure blocked runs; phase 1 is not committed again.
    const mark = e2e.model.requests.length;
    const again = await ottoSpec(client, "execute");
    expect(again.output).toContain("Progress: 4/4 completed");
    expect(attempts(e2e.model.requests.slice(mark)).map((r) => /- \*\*id\*\*: (\S+)/.exec(r.lastUser)?.[1])).toEqual(["task-003"]);
    const subjects = (await ws.repo.log()).map((c) => c.subject);
    expect(subjects.filter((s) => s.includes("phase 1"))).toHaveLength(1);
    expect(subjects.slice(0, 3)).toEqual([
      `otto(${SLUG}): align documentation`,
      `otto(${SLUG}): phase 2: task-003, task-004`,
      `otto(${SLUG}): task-001: Broken greeting`,
    ]);
    // The reasons of the earlier failure and skip went when the tasks completed.
    expect(ws.readFile(`${SPEC}/tasks.md`)).not.toMatch(/last_error|skip_reason/);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 300_000);
});
