import { describe, expect, it } from "vitest";
import path from "node:path";
import { executeSpec, parseTrailers, runOneTask } from "../../../src/execute/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { until } from "../../support/wait.ts";
import { git, gitEnv } from "../../support/git.ts";
import { isOttoError } from "../../../src/core/index.ts";
import { runGit } from "../../../src/workspace/index.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { SLUG, useFakeExecute, statuses, of } from "./fake-execute.ts";

const setup = useFakeExecute();

const TWO_PHASES = tasksMd([
  ["t1", "pending", 1, [], "First"],
  ["t2", "pending", 1, [], "Second"],
  ["t3", "pending", 2, ["t1", "t2"], "Third"],
]);

/**
 * Holds each task until `cap` tasks run at once, or all that are left of its phase, so a test of
 * overlap does not depend on timing: a serial engine waits out the deadline and shows 1, one that
 * ignores the cap shows more than `cap`.
 */
function holdUntilOverlap(cap: number) {
  let inFlight = 0;
  let max = 0;
  const finished = new Map<string, number>();
  const waiting: Array<() => void> = [];
  const wakeAll = () => {
    for (const wake of waiting.splice(0)) wake();
  };
  return {
    max: () => max,
    async run<T>(phase: { name: string; tasks: number }, work: () => T): Promise<T> {
      max = Math.max(max, ++inFlight);
      wakeAll();
      const deadline = Date.now() + 10_000;
      const left = () => phase.tasks - (finished.get(phase.name) ?? 0);
      while (inFlight < Math.min(cap, left()) && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      try {
        return work();
      } finally {
        inFlight--;
        finished.set(phase.name, (finished.get(phase.name) ?? 0) + 1);
        wakeAll();
      }
    },
  };
}

describe("executeSpec", () => {
  it("a tree where git knows no identity (user.useConfigOnly, none set): refused before any model call, naming the fix", async () => {
    const f = await setup(TWO_PHASES, () => undefined);
    const plain = gitEnv();
    await git(["config", "--unset", "user.email"], f.repoRoot);
    await git(["config", "user.useConfigOnly", "true"], f.repoRoot);
    const error = await executeSpec({ ...f.deps, git: (args, options) => runGit(args, { ...options, env: plain }) }).catch(
      (e: unknown) => e,
    );
    expect(isOttoError(error) && error.code).toBe("git_identity");
    expect(String((error as Error).message)).toMatch(/does not know who you are .*Nothing was run/);
    expect((error as { fix?: string }).fix).toMatch(/user\.email .*run \/otto-spec execute again/);
    expect(f.calls).toEqual([]);
    expect(statuses(f)).toEqual({ t1: "pending", t2: "pending", t3: "pending" });
  });

  it('on a machine without a sandbox under "auto", the summary says the commands ran without one and how to get one; with one, it says nothing', async () => {
    const f = await setup(tasksMd([["t1", "pending", 1, [], "First"]]), () => undefined);
    // The fake's environment has no PATH: no bwrap on it.
    const { output } = await executeSpec(f.deps);
    expect(output).toMatch(
      /Note: no sandbox \(bubblewrap \(bwrap\) is not installed\): the sessions' shell commands and the checks ran .*apt-get install bubblewrap/,
    );
    const off = await setup(tasksMd([["t1", "pending", 1, [], "First"]]), () => undefined);
    const chosen = await executeSpec({ ...off.deps, settings: { ...off.deps.settings, sandbox: "off" } });
    expect(chosen.output).not.toContain("no sandbox");
    if (detectSandbox(process.env).kind !== "none") {
      const boxed = await setup(tasksMd([["t1", "pending", 1, [], "First"]]), () => undefined);
      const sandboxed = await executeSpec({ ...boxed.deps, env: { ...boxed.deps.env, PATH: process.env.PATH ?? "" } });
      expect(sandboxed.output).not.toContain("no sandbox");
    }
  });

  it("runs a two-phase spec to completed tasks, one commit per phase plus one for docs, with history", async () => {
    const overlap = holdUntilOverlap(4);
    const f = await setup(TWO_PHASES, async (call) => {
      if (call.kind !== "execute-task") return undefined;
      return overlap.run(call.task === "t3" ? { name: "2", tasks: 1 } : { name: "1", tasks: 2 }, () => {
        f.write(`src/${call.task}.txt`, `${call.task}\n`);
        return { text: `Created src/${call.task}.txt.` };
      });
    });
    const { output, report, title } = await executeSpec(f.deps);

    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed", t3: "completed" });
    const log = await f.log();
    expect(log.map((m) => m.split("\n")[0])).toEqual([
      `otto(${SLUG}): align documentation`,
      `otto(${SLUG}): phase 2: t3`,
      `otto(${SLUG}): phase 1: t1, t2`,
      "Initial commit",
    ]);
    expect(log.map((m) => parseTrailers(m)[0]?.kind)).toEqual(["docs", "phase", "phase", undefined]);
    expect(await f.status()).toBe("");
    expect(f.history().filter((h) => h.startsWith("run-"))).toEqual(["run-001.md", "run-002.md", "run-003.md"]);
    expect(
      f
        .history()
        .filter((h) => !h.startsWith("run-"))
        .map((h) => h.replace(/-2026.*/, "")),
    ).toEqual(["docs", "phase-1", "phase-2"]);
    expect(f.read(`.otto/specs/${SLUG}/history/run-003.md`)).toMatch(
      /# run-003: t3 attempt 1\/3[\s\S]*- \*\*result\*\*: completed[\s\S]*## Dialog/,
    );

    // Parallel tasks overlap; every session is a child of the invoking one and is deleted.
    expect(overlap.max()).toBe(2);
    expect(f.fake.deleted.length).toBe(f.created.length);
    expect(f.fake.sessions.size).toBe(0);
    expect([...new Set(f.created.map((s) => `${s.parentID} ${s.directory}`))]).toEqual([`ses_parent ${f.repoRoot}`]);
    // Briefed prompts, phase 1's summary handed to phase 2, the gates in order.
    expect(of(f.calls, "execute-task", "t3")[0]?.text).toContain("# Your brief");
    expect(of(f.calls, "execute-task", "t3")[0]?.text).toContain(`otto(${SLUG}): phase 1: t1, t2`);
    expect(of(f.calls, "execute-task", "t3")[0]?.body.agent).toBe("otto-executor");
    expect(of(f.calls, "phase-review")[0]?.body).toMatchObject({ agent: "otto-reviewer", model: { modelID: "secondary-1" } });
    // Question harvesting runs alongside the gates (it only reads dialogs), so it is counted apart.
    expect(of(f.calls, "question-harvest")).toHaveLength(2);
    const gates = f.calls.filter((c) => !["execute-task", "task-briefing", "question-harvest"].includes(c.kind ?? ""));
    expect(gates.map((c) => c.kind)).toEqual([
      "phase-review",
      "external-assumptions",
      "domain-hardening",
      "phase-review",
      "external-assumptions",
      "domain-hardening",
      "docs-align",
      "review",
    ]);
    expect(f.progress).toContain("Phase 1: 0/2 done, 2 running, 0 failed");
    expect(f.progress).toContain("Phase 2: 1/1 done, 0 running, 0 failed");
    expect(f.toasts.some((t) => t.startsWith("Phase 1 committed: "))).toBe(true);
    expect(title).toBe(`otto-spec execute ${SLUG}: 3/3 completed`);
    expect(output).toContain("| 1 | t1 | completed | 1 |");
    expect(output).toMatch(/Phase 1: .*committed [0-9a-f]{7}/);
    expect(report.docs?.commit).toMatch(/^[0-9a-f]{7}/);

    // A second run has nothing left to do.
    const before = f.calls.length;
    const again = await executeSpec(f.deps);
    expect(f.calls.length).toBe(before);
    expect((await f.log()).length).toBe(4);
    expect(again.output).toContain("Phase 1: committed earlier");
  }, 30_000);

  it("runs at most spec.max_parallel_tasks tasks of a phase at once", async () => {
    const tasks = tasksMd(
      ["t1", "t2", "t3", "t4", "t5"].map((id): [string, string, number, string[], string] => [id, "pending", 1, [], id]),
    );
    const overlap = holdUntilOverlap(2);
    const f = await setup(
      tasks,
      async (call) => {
        if (call.kind !== "execute-task") return undefined;
        return overlap.run({ name: "1", tasks: 5 }, () => (f.write(`src/${call.task}.txt`, "done\n"), { text: "Done." }));
      },
      { maxParallelTasks: 2, reviewGate: false, externalAssumptions: false, domainHardening: false, docsAlignment: false },
    );
    await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed", t3: "completed", t4: "completed", t5: "completed" });
    expect(of(f.calls, "execute-task")).toHaveLength(5);
    expect(overlap.max()).toBe(2);
    expect(f.progress).toContain("Phase 1: 0/5 done, 2 running, 0 failed");
    expect(f.progress.some((t) => /, [3-5] running,/.test(t))).toBe(false);
  });

  it("a task's briefing session opens first, and its executor's session opens while the briefing runs", async () => {
    let during: string[] = [];
    const f = await setup(
      tasksMd([["t1", "pending", 1, [], "Only"]]),
      async (call) => {
        if (call.kind !== "task-briefing")
          return call.kind === "execute-task" ? (f.write("src/t1.txt", "done\n"), { text: "Done." }) : undefined;
        await until("the executor's session", () => f.fake.sessions.size >= 2, 5_000, 5);
        during = [...f.fake.sessions.values()].map((s) => s.title ?? "");
        return undefined;
      },
      { reviewGate: false, externalAssumptions: false, domainHardening: false, docsAlignment: false },
    );
    await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed" });
    expect(during).toEqual(["otto: brief t1", "otto: t1 attempt 1"]);
  });

  it("a task that always fails the same way stops after two attempts, its dependents skipped, other phases still run; retries see the error", async () => {
    const tasks = tasksMd([
      ["t1", "pending", 1, [], "Broken"],
      ["t2", "pending", 1, [], "Fine"],
      ["t3", "pending", 2, ["t1"], "Needs broken"],
      ["t4", "pending", 2, ["t2"], "Needs fine"],
      ["t5", "pending", 3, ["t3"], "Needs skipped"],
    ]);
    const f = await setup(
      tasks,
      (call) => {
        if (call.kind !== "execute-task") return undefined;
        if (call.task === "t1") return { text: "I tried.\nTASK_FAILED: the widget API is missing" };
        f.write(`src/${call.task}.txt`, "ok\n");
        return { text: "Done." };
      },
      { maxTaskRetries: 5, docsAlignment: false },
    );
    const { output, report } = await executeSpec(f.deps);

    expect(statuses(f)).toEqual({ t1: "failed", t2: "completed", t3: "skipped", t4: "completed", t5: "skipped" });
    const attempts = of(f.calls, "execute-task", "t1");
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.text).toContain("Attempt 1 failed: TASK_FAILED: the widget API is missing");
    // The same failure twice in a row: no third attempt, although 5 retries were allowed.
    expect(f.tasks()).toContain(
      "- **last_error**: failed the same way twice in a row: TASK_FAILED: the widget API is missing (after 2 attempts)",
    );
    expect(f.tasks()).toContain("- **skip_reason**: depends on t1, which failed");
    expect(f.tasks()).toContain("- **skip_reason**: depends on t3, which was skipped");
    expect((await f.log()).map((m) => m.split("\n")[0])).toEqual([
      `otto(${SLUG}): phase 2: t3, t4`,
      `otto(${SLUG}): phase 1: t1, t2`,
      "Initial commit",
    ]);
    expect(report.phases.find((p) => p.group === 3)?.note).toBe("no task of the phase is completed");
    expect(output).toContain("Failed:\n- t1: failed the same way twice in a row: TASK_FAILED: the widget API is missing (2 attempts;");
    expect(output).toContain("- t3: depends on t1, which failed");
    expect(output).toContain(
      `Next step: look at the failures above (history/ has each attempt's dialog), then /otto-spec task run --spec ${SLUG} --id t1`,
    );

    // task run retries the failed task and commits it on its own; execute then runs what it unblocked.
    f.deps.settings.docsAlignment = true;
    const calls = f.calls.length;
    f.answer((call) => {
      if (call.kind !== "execute-task") return undefined;
      f.write(`src/${call.task}.txt`, "ok\n");
      return { text: "Done." };
    });
    const one = await runOneTask(f.deps, undefined, "t1");
    expect(one.title).toMatch(/^otto-spec task run t1: completed, committed [0-9a-f]{7}$/);
    expect(parseTrailers((await f.log())[0] ?? "")).toEqual([{ kind: "task", slug: SLUG, id: "t1" }]);
    const resumed = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed", t3: "completed", t4: "completed", t5: "completed" });
    // The reasons of the earlier failure and skips go with them.
    expect(f.tasks()).not.toMatch(/last_error|skip_reason/);
    expect(of(f.calls.slice(calls), "execute-task").map((c) => c.task)).toEqual(["t1", "t3", "t5"]);
    expect(resumed.output).toContain("Phase 1: committed earlier");
    expect((await f.log()).map((m) => m.split("\n")[0]).slice(0, 4)).toEqual([
      `otto(${SLUG}): align documentation`,
      `otto(${SLUG}): phase 3: t5`,
      `otto(${SLUG}): phase 2: t3, t4`,
      `otto(${SLUG}): t1: Broken`,
    ]);
  }, 30_000);

  it("a task that fails differently each time uses every retry; a timestamp or session id in the reason does not make it different", async () => {
    let n = 0;
    const f = await setup(
      tasksMd([["t1", "pending", 1, [], "Flaky"]]),
      (call) => {
        if (call.kind !== "execute-task") return undefined;
        n++;
        // Attempts 1-2 fail differently; 3 and 4 the same way but for their volatile parts.
        const reason =
          n <= 2 ? `step ${n} is broken` : `the registry at 127.0.0.1:${40000 + n} refused at 2026-11-26T22:0${n}:00Z (session ses_${n}x)`;
        return { text: `TASK_FAILED: ${reason}` };
      },
      {
        maxTaskRetries: 5,
        reviewGate: false,
        externalAssumptions: false,
        domainHardening: false,
        docsAlignment: false,
        taskBriefing: false,
      },
    );
    await executeSpec(f.deps);
    expect(of(f.calls, "execute-task", "t1")).toHaveLength(4);
    expect(f.tasks()).toContain(
      "- **last_error**: failed the same way twice in a row: TASK_FAILED: the registry at 127.0.0.1:40004 refused at 2026-11-26T22:04:00Z (session ses_4x) (after 4 attempts)",
    );
    const history = f
      .history()
      .map((name) => f.read(path.relative(f.repoRoot, path.join(f.specDir, "history", name))))
      .join("\n");
    expect(history).toContain("- **result**: failed: TASK_FAILED: step 2 is broken\n");
    expect(history).toContain("(the same failure as attempt 3: no more retries)");
  });
});
