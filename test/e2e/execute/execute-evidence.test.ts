import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, text, toolCall, useE2E, type Workspace } from "../../support/index.ts";
import fs from "node:fs";
import path from "node:path";
import { attempts, callExecute, doc, execModel, isFollowUp, kindOf, type Respond } from "../execute/exec-model.ts";
import { executeTool } from "../execute/drive.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;
const fieldsOf = (tasks: string, id: string): string =>
  new RegExp(`- \\*\\*id\\*\\*: ${id}\\n([\\s\\S]*?)(?=\\n## |$)`).exec(tasks)?.[1] ?? "";

describe("otto_spec_execute through opencode serve: a task is completed only with evidence", () => {
  const e2e = useE2E({}, { shareServer: true });

  /** Serves the workspace with the execute tool call scripted and the model answering through `respond`. */
  async function serveExecute(ws: Workspace, respond: Respond) {
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      ...callExecute(),
      { ...slashCommand("otto_spec")[0]!, times: Infinity },
      { ...slashCommand("otto_spec")[1]!, times: Infinity },
      execModel(ws.project, respond),
    );
    return client;
  }

  it("no change and no NO_CHANGES is retried then failed; NO_CHANGES completes with its reason; a passing task records commit, files and checks", async () => {
    const ws = await e2e.workspace({
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "Write the greeting"],
          ["task-002", "pending", 1, [], "Claims without doing"],
          ["task-003", "pending", 1, [], "Already there"],
        ]),
      ),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        // One task at a time: each task's evidence is its snapshot diff (execute-files.test.ts runs tasks in parallel).
        spec: {
          max_parallel_tasks: 1,
          max_task_retries: 1,
          task_briefing: false,
          external_assumptions: false,
          domain_hardening: false,
          verify: ["test -f src/task-001.txt"],
        },
      },
    });
    const client = await serveExecute(ws, (kind, req) => {
      if (kind !== "execute-task") return undefined;
      if (req.lastUser.includes("- **id**: task-002")) return text("Everything is in place, all done.");
      if (req.lastUser.includes("- **id**: task-003"))
        return text("README.md already greets.\nNO_CHANGES: already implemented by README.md");
      return undefined;
    });

    const run = await executeTool(client);
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    const phase = (await ws.repo.git(["log", "--format=%h", "--grep", `Otto-Phase: ${SLUG}/1`])).trim();
    expect(phase).toMatch(/^[0-9a-f]{7,}$/);

    // The executor that changed nothing and said nothing was retried, then failed with the reason.
    expect(attempts(e2e.model.requests, "task-002")).toHaveLength(2);
    expect(attempts(e2e.model.requests, "task-002")[1]?.lastUser).toContain(
      "Attempt 1 failed: the session changed no file and gave no NO_CHANGES reason",
    );
    expect(fieldsOf(tasks, "task-002")).toContain("- **status**: failed");
    expect(fieldsOf(tasks, "task-002")).toContain(
      "- **last_error**: failed the same way twice in a row: the session changed no file and gave no NO_CHANGES reason (after 2 attempts)",
    );
    expect(run.output).toContain(
      "- task-002: failed the same way twice in a row: the session changed no file and gave no NO_CHANGES reason (2 attempts;",
    );

    // NO_CHANGES completes the task with its reason.
    expect(attempts(e2e.model.requests, "task-003")).toHaveLength(1);
    expect(fieldsOf(tasks, "task-003")).toContain("- **status**: completed");
    expect(fieldsOf(tasks, "task-003")).toContain("- **no_changes**: already implemented by README.md");

    // The passing task: its files, checks and commit, in tasks.md and in the summary.
    // Between the evidence, what the task's model calls used (the scripted model's usage has no price).
    expect(fieldsOf(tasks, "task-001")).toContain(
      `- **status**: completed\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: Write the greeting.\n- **files**: ["src/task-001.txt"]\n- **changed_files**: src/task-001.txt\n- **cost**: `,
    );
    expect(fieldsOf(tasks, "task-001")).toMatch(
      new RegExp(
        `- \\*\\*cost\\*\\*: \\d+ tokens, cost unknown\\n- \\*\\*checks\\*\\*: test -f src/task-001\\.txt exit 0\\n- \\*\\*commit\\*\\*: ${phase}`,
      ),
    );
    expect(run.output).toMatch(
      new RegExp(
        `\\| 1 \\| task-001 \\| completed \\| 1 \\| [^|]+ \\| [^|]+ \\| commit ${phase} · files src/task-001\\.txt · checks test -f src/task-001\\.txt exit 0 \\|`,
      ),
    );
    expect(run.output).toMatch(
      new RegExp(
        `\\| 1 \\| task-003 \\| completed \\| 1 \\| [^|]+ \\| [^|]+ \\| commit ${phase} · NO_CHANGES: already implemented by README\\.md · checks test -f src/task-001\\.txt exit 0 \\|`,
      ),
    );
    // The commit field reached git with the documentation commit that followed the phase.
    expect(await ws.repo.git(["show", `HEAD:${SPEC}/tasks.md`])).toContain(`- **commit**: ${phase}`);
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    expect(e2e.model.unmatched()).toEqual([]);
  }, 300_000);

  it("with briefing on (the tree is first read while the brief is written): a brief that tries to write gives its task no evidence; the writing task's files are its own", async () => {
    const ws = await e2e.workspace({
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "Write the greeting"],
          ["task-002", "pending", 1, [], "Claims without doing"],
        ]),
      ),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: {
          max_parallel_tasks: 1,
          max_task_retries: 0,
          external_assumptions: false,
          domain_hardening: false,
          docs_alignment: false,
          review_gate: false,
        },
      },
    });
    // The user's own edit, in the tree while the briefs are written: never a task's evidence or commit.
    const userEdit = "# project\n\nThe user's edit, not otto's.\n";
    fs.writeFileSync(path.join(ws.project, "README.md"), userEdit);
    const client = await serveExecute(ws, (kind, req) => {
      const two = req.lastUser.includes("- **id**: task-002");
      // The briefing of task-002 writes the file its task asks for (the read-only briefing agent may not).
      if (kind === "task-briefing" && two)
        return isFollowUp(req)
          ? doc("# Brief: task-002\n\nDone already.")
          : toolCall("write", { filePath: path.join(ws.project, "src/task-002.txt"), content: "briefed\n" });
      if (kind === "execute-task" && two) return text("The brief wrote it; all done.");
      return undefined;
    });

    const run = await executeTool(client);
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(e2e.model.requests.filter((r) => kindOf(r) === "task-briefing" && r.lastRole === "user")).toHaveLength(2);
    // The brief's write was tried (OpenCode answered the tool call) and refused.
    expect(
      e2e.model.requests.some((r) => kindOf(r) === "task-briefing" && isFollowUp(r) && r.lastUser.includes("- **id**: task-002")),
    ).toBe(true);
    expect(fs.existsSync(path.join(ws.project, "src/task-002.txt"))).toBe(false);
    expect(fieldsOf(tasks, "task-002")).toContain("- **status**: failed");
    expect(fieldsOf(tasks, "task-002")).toContain(
      "- **last_error**: the session changed no file and gave no NO_CHANGES reason (after 1 attempt)",
    );
    expect(fieldsOf(tasks, "task-001")).toContain("- **status**: completed");
    expect(fieldsOf(tasks, "task-001")).toContain("- **changed_files**: src/task-001.txt\n");
    expect(run.output).toContain("- task-002: the session changed no file and gave no NO_CHANGES reason (1 attempt;");
    expect(fs.readFileSync(path.join(ws.project, "README.md"), "utf8")).toBe(userEdit);
    expect(await ws.repo.git(["status", "--porcelain", "README.md"])).toContain("M README.md");
    const root = (await ws.repo.git(["rev-list", "--max-parents=0", "HEAD"])).trim();
    const committed = (await ws.repo.git(["diff", "--name-only", root, "HEAD"])).split("\n");
    expect(committed).toContain("src/task-001.txt");
    expect(committed).not.toContain("README.md");
  }, 300_000);
});
