import { describe, expect, it } from "vitest";
import { executeSpec, runOneTask } from "../../../src/execute/index.ts";
import { git } from "../../support/git.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { SLUG, useFakeExecute, statuses, of } from "./fake-execute.ts";

const setup = useFakeExecute();
const QUIET = { reviewGate: false, externalAssumptions: false, domainHardening: false, docsAlignment: false, taskBriefing: false };

describe("executeSpec: a task is completed only with evidence", () => {
  it("an executor that changes nothing and gives no NO_CHANGES reason is retried, then failed (the same failure twice ends the retries)", async () => {
    const f = await setup(
      tasksMd([["t1", "pending", 1, [], "Lazy"]]),
      (call) => (call.kind === "execute-task" ? { text: "All done, trust me." } : undefined),
      { ...QUIET, maxTaskRetries: 4 },
    );
    const { output } = await executeSpec(f.deps);
    expect(of(f.calls, "execute-task", "t1")).toHaveLength(2);
    expect(of(f.calls, "execute-task", "t1")[1]?.text).toContain(
      "Attempt 1 failed: the session changed no file and gave no NO_CHANGES reason",
    );
    expect(statuses(f)).toEqual({ t1: "failed" });
    expect(f.tasks()).toContain(
      "- **last_error**: failed the same way twice in a row: the session changed no file and gave no NO_CHANGES reason (after 2 attempts)",
    );
    expect(output).toContain(
      "- t1: failed the same way twice in a row: the session changed no file and gave no NO_CHANGES reason (2 attempts;",
    );
    // Nothing completed: no commit at all.
    expect((await f.log()).map((m) => m.split("\n")[0])).toEqual(["Initial commit"]);
  });

  it("NO_CHANGES with a reason completes the task and records the reason; a phase of such tasks is still recorded", async () => {
    const f = await setup(
      tasksMd([["t1", "pending", 1, [], "Already there"]]),
      (call) => (call.kind === "execute-task" ? { text: "Looked.\nNO_CHANGES: already implemented by README.md" } : undefined),
      QUIET,
    );
    const { output } = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed" });
    expect(f.tasks()).toContain("- **no_changes**: already implemented by README.md");
    expect(f.tasks()).not.toContain("changed_files");
    expect(output).toMatch(
      /\| 1 \| t1 \| completed \| 1 \| [^|]+ \| [^|]+ \| commit [0-9a-f]{7} · NO_CHANGES: already implemented by README.md · checks none \|/,
    );
    const [head] = await f.log();
    expect(head).toContain(`Otto-Phase: ${SLUG}/1`);
    expect(f.history().some((h) => h.startsWith("run-001"))).toBe(true);
    expect(f.read(`.otto/specs/${SLUG}/history/run-001.md`)).toContain("- **evidence**: NO_CHANGES: already implemented by README.md");
  });

  it("a passing task records its changed files, checks and commit in tasks.md, the phase record and the summary", async () => {
    const f = await setup(
      tasksMd([
        ["t1", "pending", 1, [], "Write"],
        ["t2", "pending", 2, ["t1"], "Write more"],
      ]),
      (call) => {
        if (call.kind !== "execute-task") return undefined;
        f.write(`src/${call.task}.txt`, "x\n");
        f.write(`lib/${call.task}.ts`, "export {};\n");
        return { text: "Wrote two files." };
      },
      { ...QUIET, verify: ["true", "test -f src/t1.txt"] },
    );
    const { output } = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed" });
    const phase1 = (await git(["log", "--format=%h", "--grep", `Otto-Phase: ${SLUG}/1`], f.repoRoot)).trim();
    expect(phase1).toMatch(/^[0-9a-f]{7}$/);
    const tasks = f.tasks();
    expect(tasks).toContain(
      `- **id**: t1\n- **status**: completed\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: Write.\n- **files**: ["src/t1.txt"]\n- **changed_files**: lib/t1.ts, src/t1.txt\n- **checks**: true exit 0, test -f src/t1.txt exit 0\n- **commit**: ${phase1}\n`,
    );
    expect(output).toContain(`| commit ${phase1} · files lib/t1.ts, src/t1.txt · checks true exit 0, test -f src/t1.txt exit 0 |`);
    // t1's commit field went into phase 2's commit; the phase record lists the evidence.
    expect(await git(["show", `HEAD:.otto/specs/${SLUG}/tasks.md`], f.repoRoot)).toContain(`- **commit**: ${phase1}`);
    const record = f.history().find((h) => h.startsWith("phase-1-")) ?? "";
    expect(f.read(`.otto/specs/${SLUG}/history/${record}`)).toContain(
      "## Evidence\n\n- t1: changed lib/t1.ts, src/t1.txt; checks true exit 0, test -f src/t1.txt exit 0",
    );
  });

  it("task run records the same evidence and says it in its output", async () => {
    const f = await setup(
      tasksMd([["t1", "pending", 1, [], "Write"]]),
      (call) => (call.kind === "execute-task" ? (f.write("src/t1.txt", "x\n"), { text: "Wrote it." }) : undefined),
      { ...QUIET, verify: ["true"] },
    );
    const one = await runOneTask(f.deps, undefined, "t1");
    const sha = /committed ([0-9a-f]{7})$/.exec(one.title)?.[1];
    expect(sha).toBeDefined();
    expect(one.output).toContain("Changed: src/t1.txt");
    expect(f.tasks()).toContain(`- **changed_files**: src/t1.txt\n- **checks**: true exit 0\n- **commit**: ${sha}\n`);
  });
});
