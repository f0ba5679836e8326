import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  assertPluginLoaded,
  DEVELOPER,
  delay,
  slashCommand,
  text,
  toolCall,
  useE2E,
  type RecordedRequest,
  type Workspace,
} from "../../support/index.ts";
import { callExecute, execModel, isFollowUp, kindOf, type Respond } from "../execute/exec-model.ts";
import { executeTool } from "../execute/drive.ts";
import { specFiles, taskIdOf, tasksMd } from "../execute/kinds.ts";

/*
 * Two tasks of one phase run at the same time in one working tree. Each task's `changed_files` is
 * what its own sessions changed (OpenCode's file tools, recorded by otto's tool hooks), not what
 * changed while it ran; a change made while both ran shell commands is listed once, on the phase.
 */

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;
const fieldsOf = (tasks: string, id: string): string =>
  new RegExp(`- \\*\\*id\\*\\*: ${id}\\n([\\s\\S]*?)(?=\\n## |$)`).exec(tasks)?.[1] ?? "";
/** Tool results the session has had back so far: the turn it is at. */
const turnOf = (req: RecordedRequest): number => req.messages.filter((m) => m.role === "tool").length;

describe("otto_spec_execute through opencode serve: files credited per task in a parallel phase", () => {
  const e2e = useE2E({}, { shareServer: true });

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

  const workspace = () =>
    e2e.workspace({
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "Write the first greeting"],
          ["task-002", "pending", 1, [], "Write the second greeting"],
        ]),
      ),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: {
          max_parallel_tasks: 2,
          max_task_retries: 0,
          task_briefing: false,
          review_gate: false,
          external_assumptions: false,
          domain_hardening: false,
          docs_alignment: false,
        },
      },
    });

  /**
   * The tasks ran at the same time: both writes were done (each session asked for its follow-up)
   * before either session's final answer came back, so the task that started first saw both
   * files appear while it ran (its snapshot diff holds both).
   */
  function expectOverlap(): void {
    const followUps = ["task-001", "task-002"].map((id) =>
      e2e.model.requests.find((r) => kindOf(r) === "execute-task" && isFollowUp(r) && taskIdOf(r.lastUser) === id),
    );
    const asked = followUps.map((r) => r?.startedAt ?? Infinity);
    const answered = followUps.map((r) => r?.endedAt ?? -Infinity);
    expect(Math.max(...asked)).toBeLessThan(Math.min(...answered));
  }

  const phaseRecord = (ws: Workspace): string => {
    const dir = path.join(ws.project, SPEC, "history");
    const file = fs.readdirSync(dir).find((f) => f.startsWith("phase-1-"));
    if (!file) throw new Error(`no phase record in ${fs.readdirSync(dir).join(", ")}`);
    return fs.readFileSync(path.join(dir, file), "utf8");
  };

  it("two tasks running at once, each writing one file with the write tool: each task's changed_files is exactly its own file", async () => {
    const ws = await workspace();
    const client = await serveExecute(ws, (kind, req) => {
      // The answer after the write waits: the other task writes its file meanwhile.
      if (kind === "execute-task" && isFollowUp(req)) return delay(4_000, text(`Created src/${taskIdOf(req.lastUser) ?? "?"}.txt.`));
      return undefined;
    });

    const run = await executeTool(client);
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    expectOverlap();
    // Both files were in the tree while each task ran; each row names only its own.
    expect(fieldsOf(tasks, "task-001")).toContain("- **status**: completed");
    expect(fieldsOf(tasks, "task-001")).toContain("- **changed_files**: src/task-001.txt\n");
    expect(fieldsOf(tasks, "task-002")).toContain("- **status**: completed");
    expect(fieldsOf(tasks, "task-002")).toContain("- **changed_files**: src/task-002.txt\n");
    expect(tasks).not.toContain("shared_changes");
    const record = phaseRecord(ws);
    expect(record).toMatch(/^- task-001: changed src\/task-001\.txt; checks/m);
    expect(record).toMatch(/^- task-002: changed src\/task-002\.txt; checks/m);
    expect(record).not.toContain("changed while tasks");
    expect(run.output).toMatch(/\| task-001 \| completed \|[^\n]*files src\/task-001\.txt ·/);
    expect(run.output).toMatch(/\| task-002 \| completed \|[^\n]*files src\/task-002\.txt ·/);
    // The phase commit is unchanged: one commit with both files.
    const phase = (await ws.repo.git(["log", "--format=%H", "--grep", `Otto-Phase: ${SLUG}/1`])).trim();
    expect(phase).not.toBe("");
    const inPhase = (await ws.repo.git(["show", "--name-only", "--format=", phase])).split("\n");
    expect(inPhase).toEqual(expect.arrayContaining(["src/task-001.txt", "src/task-002.txt"]));
    expect(e2e.model.unmatched()).toEqual([]);
  }, 300_000);

  it("both tasks change files through bash at the same time: the shell changes are listed once, on the phase, in neither task's row", async () => {
    const ws = await workspace();
    const client = await serveExecute(ws, (kind, req) => {
      if (kind !== "execute-task") return undefined;
      const id = taskIdOf(req.lastUser) ?? "?";
      const n = id === "task-001" ? "one" : "two";
      const turn = turnOf(req);
      // Turn 1: a shell command that takes a while (the other task's runs meanwhile) and writes gen/<n>.txt.
      // The developer's editor state (.idea/, ignored only by their global ignore file) changes too.
      if (turn === 0)
        return toolCall("bash", {
          command: `sleep 3 && mkdir -p gen .idea && echo ${n} > gen/${n}.txt && echo '<${n}/>' > .idea/${n}.xml`,
          description: "generate",
        });
      // task-001 also writes its own file with the write tool; task-002 changes nothing else.
      if (id === "task-001" && turn === 1)
        return toolCall("write", { filePath: path.join(ws.project, "src/task-001.txt"), content: "task-001\n" });
      return text("Ran the generator.");
    });

    const run = await executeTool(client);
    const tasks = ws.readFile(`${SPEC}/tasks.md`);
    expect(fs.readFileSync(path.join(ws.project, "gen/one.txt"), "utf8")).toBe("one\n");
    expect(fs.readFileSync(path.join(ws.project, "gen/two.txt"), "utf8")).toBe("two\n");
    const shared = "- **shared_changes**: 2 files changed while tasks task-001, task-002 ran (listed in the phase's record)\n";
    // task-001: its own write in its row; the shell changes counted, not named.
    expect(fieldsOf(tasks, "task-001")).toContain("- **status**: completed");
    expect(fieldsOf(tasks, "task-001")).toContain(`- **changed_files**: src/task-001.txt\n${shared}`);
    // task-002 changed files only through the shell it shared: done, no file of its own listed.
    expect(fieldsOf(tasks, "task-002")).toContain("- **status**: completed");
    expect(fieldsOf(tasks, "task-002")).toContain(shared);
    expect(fieldsOf(tasks, "task-002")).not.toContain("changed_files");
    expect(tasks).not.toContain("gen/");
    // Listed once, on the phase: its history record and the summary.
    const record = phaseRecord(ws);
    expect(record).toMatch(/^- task-001: changed src\/task-001\.txt; checks/m);
    expect(record).toMatch(/^- task-002: changes shared with other tasks \(below\); checks/m);
    expect(record.match(/changed while tasks task-001, task-002 ran: gen\/one\.txt, gen\/two\.txt/g)).toHaveLength(1);
    expect(run.output.match(/Phase 1: changed while tasks task-001, task-002 ran: gen\/one\.txt, gen\/two\.txt/g)).toHaveLength(1);
    expect(run.output).not.toMatch(/\| task-00[12] \|[^\n]*gen\//);
    // The phase commit takes them all, as before.
    const phase = (await ws.repo.git(["log", "--format=%H", "--grep", `Otto-Phase: ${SLUG}/1`])).trim();
    const inPhase = (await ws.repo.git(["show", "--name-only", "--format=", phase])).split("\n");
    expect(inPhase).toEqual(expect.arrayContaining(["gen/one.txt", "gen/two.txt", "src/task-001.txt"]));
    // A developer's home: the phase is theirs, and what they ignore everywhere stays out of it.
    expect(await ws.repo.git(["log", "-1", "--format=%an <%ae>", phase])).toBe(`${DEVELOPER.name} <${DEVELOPER.email}>`);
    expect(inPhase.filter((f) => f.startsWith(".idea/"))).toEqual([]);
    expect(fs.existsSync(path.join(ws.project, ".idea/one.xml"))).toBe(true);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 300_000);
});
