import path from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import { executeSpec } from "../../../src/execute/index.ts";
import { SessionRunner, SessionWrites } from "../../../src/session/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { ENV, SLUG, statuses, useFakeExecute, type Call } from "./fake-execute.ts";

/*
 * Parallel tasks of a phase through executeSpec, with the session layer's record of tool calls
 * fed as OpenCode's hooks would feed it (the fake "model" writes the files itself and reports the
 * write tool's call for its session). The e2e test/e2e/execute/execute-files.test.ts does it through real OpenCode.
 */

const setup = useFakeExecute();
const QUIET = {
  reviewGate: false,
  externalAssumptions: false,
  domainHardening: false,
  docsAlignment: false,
  taskBriefing: false,
  maxTaskRetries: 0,
};

/** A promise and its resolver: the tasks wait for each other, so they run at the same time. */
function barrier(): { reached: Promise<void>; reach: () => void } {
  let reach = () => undefined as void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { reached, reach };
}

async function parallel(
  answer: (call: Call, tools: { write: (rel: string) => void; shell: (rel: string) => void }) => Promise<string>,
  settings: { maxParallelTasks: number },
) {
  const writes = new SessionWrites();
  let n = 0;
  const f = await setup(
    tasksMd([
      ["t1", "pending", 1, [], "First"],
      ["t2", "pending", 1, [], "Second"],
    ]),
    async (call) => {
      if (call.kind !== "execute-task") return undefined;
      const tool = (name: string, args: unknown, run: () => void) => {
        const hook = { tool: name, sessionID: call.sessionID, callID: `c${++n}` };
        writes.toolStarted(hook);
        run();
        writes.toolFinished({ ...hook, args });
      };
      const text = await answer(call, {
        write: (rel) => tool("write", { filePath: path.join(f.repoRoot, rel), content: "x\n" }, () => f.write(rel, `${call.task ?? ""}\n`)),
        shell: (rel) => tool("bash", { command: `echo > ${rel}` }, () => f.write(rel, `${call.task ?? ""}\n`)),
      });
      return { text };
    },
    { ...QUIET, ...settings },
  );
  f.deps.runner = new SessionRunner(
    { client: f.fake.client, events: f.fake.events, log: silentLogger, env: ENV },
    { concurrency: 8, graceMs: 50, writes },
  );
  return f;
}

const fieldsOf = (tasks: string, id: string): string =>
  new RegExp(`- \\*\\*id\\*\\*: ${id}\\n([\\s\\S]*?)(?=\\n## |$)`).exec(tasks)?.[1] ?? "";

describe("executeSpec: files credited per task in a parallel phase", () => {
  it("two tasks writing at the same time each list only their own file", async () => {
    const both = barrier();
    let wrote = 0;
    const f = await parallel(
      async (call, tools) => {
        tools.write(`src/${call.task ?? ""}.txt`);
        if (++wrote === 2) both.reach();
        await both.reached;
        return "Wrote it.";
      },
      { maxParallelTasks: 2 },
    );
    const { output } = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed" });
    expect(fieldsOf(f.tasks(), "t1")).toContain("- **changed_files**: src/t1.txt\n");
    expect(fieldsOf(f.tasks(), "t2")).toContain("- **changed_files**: src/t2.txt\n");
    expect(output).not.toContain("changed while tasks");
    expect(f.read(`.otto/specs/${SLUG}/history/run-001.md`)).toMatch(/- \*\*evidence\*\*: changed src\/t[12]\.txt\n/);
  });

  it("a task that changed nothing is not done because another task wrote while it ran", async () => {
    const started = barrier();
    const written = barrier();
    const f = await parallel(
      async (call, tools) => {
        if (call.task === "t1") {
          await started.reached;
          tools.write("src/t1.txt");
          written.reach();
          return "Wrote it.";
        }
        started.reach();
        await written.reached;
        return "All done, trust me.";
      },
      { maxParallelTasks: 2 },
    );
    await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed", t2: "failed" });
    expect(fieldsOf(f.tasks(), "t2")).toContain(
      "- **last_error**: the session changed no file and gave no NO_CHANGES reason (after 1 attempt)",
    );
  });

  it("shell changes made while both tasks ran shell commands: listed once on the phase, evidence of both", async () => {
    // Both attempts have taken their first snapshot before either shell writes, and neither ends before both wrote.
    const started = barrier();
    const both = barrier();
    let came = 0;
    let ran = 0;
    const f = await parallel(
      async (call, tools) => {
        if (++came === 2) started.reach();
        await started.reached;
        tools.shell(`gen/${call.task ?? ""}.txt`);
        if (call.task === "t1") tools.write("src/t1.txt");
        if (++ran === 2) both.reach();
        await both.reached;
        return "Generated.";
      },
      { maxParallelTasks: 2 },
    );
    const { output } = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed" });
    const shared = "- **shared_changes**: 2 files changed while tasks t1, t2 ran (listed in the phase's record)\n";
    expect(fieldsOf(f.tasks(), "t1")).toContain(`- **changed_files**: src/t1.txt\n${shared}`);
    expect(fieldsOf(f.tasks(), "t2")).toContain(shared);
    expect(fieldsOf(f.tasks(), "t2")).not.toContain("changed_files");
    expect(output.match(/Phase 1: changed while tasks t1, t2 ran: gen\/t1\.txt, gen\/t2\.txt/g)).toHaveLength(1);
    const record = f.history().find((h) => h.startsWith("phase-1-")) ?? "";
    expect(f.read(`.otto/specs/${SLUG}/history/${record}`)).toContain("- changed while tasks t1, t2 ran: gen/t1.txt, gen/t2.txt");
  });

  it("tasks one at a time (max_parallel_tasks 1) keep the snapshot diff, whatever the hooks recorded", async () => {
    const f = await parallel(
      async (call, tools) => {
        tools.write(`src/${call.task ?? ""}.txt`);
        // A change no hook reported: still the task's, as before.
        f.write(`other/${call.task ?? ""}.txt`, "x\n");
        return "Wrote it.";
      },
      { maxParallelTasks: 1 },
    );
    await executeSpec(f.deps);
    expect(fieldsOf(f.tasks(), "t1")).toContain("- **changed_files**: other/t1.txt, src/t1.txt\n");
    expect(fieldsOf(f.tasks(), "t2")).toContain("- **changed_files**: other/t2.txt, src/t2.txt\n");
  });
});
