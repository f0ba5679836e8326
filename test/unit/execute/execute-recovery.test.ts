import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { executeSpec, lockRun, parseTrailers, runOneTask } from "../../../src/execute/index.ts";
import { openBaseline } from "../../../src/execute/baseline.ts";
import { git } from "../../support/git.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { envelope, SLUG, useFakeExecute, statuses, of } from "./fake-execute.ts";

const setup = useFakeExecute();
const ONE = tasksMd([["t1", "pending", 1, [], "Only"]]);
const QUIET = { externalAssumptions: false, domainHardening: false, docsAlignment: false };

describe("executeSpec: done criteria, gates and recovery", () => {
  it("a verify command that fails goes to a fix session with its output; the commit records the result", async () => {
    const f = await setup(
      ONE,
      (call) => {
        // The check passes on the untouched tree (the baseline); the task breaks it.
        if (call.kind === "execute-task") fs.rmSync(path.join(f.repoRoot, "fixed.txt"));
        if (call.kind === "phase-fix") {
          f.write("fixed.txt", "yes\n");
          return { text: "fixed: the missing file" };
        }
        return undefined;
      },
      { ...QUIET, verify: ["test -f fixed.txt || (echo 'fixed.txt is missing' && exit 4)"] },
    );
    f.write("fixed.txt", "before\n");
    await executeSpec(f.deps);
    const fix = of(f.calls, "phase-fix")[0];
    expect(fix?.text).toContain("failed (exit 4)");
    expect(fix?.text).toContain("fixed.txt is missing");
    expect(fix?.body).toMatchObject({ agent: "otto-executor", model: { modelID: "primary-1" } });
    const [head] = await f.log();
    expect(head).toContain("Verification: passed after 1 fix");
    expect(head).toContain("Otto-Verify: passed");
  });

  it("verification that stays red is committed anyway, but its tasks are failed: dependents skipped, a re-run retries them", async () => {
    const tasks = tasksMd([
      ["t1", "pending", 1, [], "Only"],
      ["t2", "pending", 2, ["t1"], "After"],
    ]);
    let removed = false;
    const f = await setup(
      tasks,
      (call) => {
        if (call.kind !== "execute-task") return undefined;
        // New content on every attempt: a retry that rewrote the same bytes would show no change.
        f.write(`src/${call.task}.txt`, `x ${f.calls.length}\n`);
        // The check passes on the untouched tree (the baseline); t1's first attempt breaks it.
        if (!removed) fs.rmSync(path.join(f.repoRoot, "ok.txt"));
        removed = true;
        return { text: `Wrote src/${call.task}.txt.` };
      },
      { ...QUIET, verify: ["test -f ok.txt"], maxVerifyFixes: 1 },
    );
    f.write("ok.txt", "ok\n");
    const { output, title } = await executeSpec(f.deps);
    expect(of(f.calls, "phase-fix")).toHaveLength(1);
    const [head] = await f.log();
    expect(head).toContain("Verification: FAILED after 1 fix (test -f ok.txt: exit 1)");
    expect(parseTrailers(head ?? "")).toEqual([{ kind: "phase", slug: SLUG, group: 1 }]);
    expect(head).toContain("Otto-Verify: failed");
    expect(head).toContain("- t1 failed: Only");
    // The work is committed, not discarded (phase 2's skip is the only change left).
    expect(await git(["show", "--name-only", "--format=", "HEAD"], f.repoRoot)).toContain("src/t1.txt");
    expect(await f.status()).toBe(`M .otto/specs/${SLUG}/tasks.md`);
    expect(statuses(f)).toEqual({ t1: "failed", t2: "skipped" });
    expect(f.tasks()).toContain("- **last_error**: spec.verify failed after 1 fix: `test -f ok.txt` exit 1\n");
    expect(f.tasks()).toContain("- **skip_reason**: depends on t1, which failed");
    expect(of(f.calls, "execute-task", "t2")).toHaveLength(0);
    expect(title).toBe(`otto-spec execute ${SLUG}: 0/2 completed, 1 failed (unverified)`);
    expect(output).toContain("| 1 | t1 | failed | 1 |");
    expect(output).toContain("Failed:\n- t1: spec.verify failed after 1 fix: `test -f ok.txt` exit 1 (1 attempt;");
    expect(output).toContain("verification: test -f ok.txt: exit 1");

    // The re-run retries t1 (failed → pending), verification passes, t2 runs; the stale notes go.
    const before = f.calls.length;
    f.write("ok.txt", "ok\n");
    const again = await executeSpec(f.deps);
    expect(of(f.calls.slice(before), "execute-task").map((c) => c.task)).toEqual(["t1", "t2"]);
    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed" });
    expect(f.tasks()).not.toMatch(/last_error|skip_reason/);
    expect(again.title).toBe(`otto-spec execute ${SLUG}: 2/2 completed`);
    expect((await f.log()).map((m) => m.split("\n")[0])).toEqual([
      `otto(${SLUG}): phase 2: t2`,
      `otto(${SLUG}): phase 1: t1`,
      `otto(${SLUG}): phase 1: t1`,
      "Initial commit",
    ]);
    expect((await f.log())[1]).toContain("Otto-Verify: passed");
  });

  it("task run fails a task whose verification stays red, and still commits its work", async () => {
    const f = await setup(
      ONE,
      (call) => (call.kind === "execute-task" ? (f.write("src/t1.txt", "x\n"), { text: "Wrote it." }) : undefined),
      { ...QUIET, verify: ["test ! -f src/t1.txt"], maxVerifyFixes: 0 },
    );
    const one = await runOneTask(f.deps, undefined, "t1");
    expect(one.title).toMatch(/^otto-spec task run t1: failed verification, committed [0-9a-f]{7}$/);
    expect(one.output).toContain("## otto-spec task run: t1 failed verification (1 attempt");
    expect(statuses(f)).toEqual({ t1: "failed" });
    expect(f.tasks()).toContain("- **last_error**: spec.verify failed: `test ! -f src/t1.txt` exit 1\n");
    const [head] = await f.log();
    expect(head).toContain("- t1 failed: Only");
    expect(head).toContain("Otto-Verify: failed");
    expect(await f.status()).toBe("");
  });

  it("commits only the run's changes: the user's uncommitted edits stay uncommitted, a file both changed is left and reported", async () => {
    const f = await setup(
      ONE,
      (call) =>
        call.kind === "execute-task"
          ? (f.write("src/t1.txt", "x\n"), f.write("shared.txt", "user's line\nsession's line\n"), { text: "Wrote it." })
          : undefined,
      QUIET,
    );
    f.write("notes/untracked.txt", "left by the user\n");
    f.write("README.md", "# project, edited\n");
    f.write("shared.txt", "user's line\n");
    const { output } = await executeSpec(f.deps);
    const files = await git(["show", "--name-only", "--format=%s", "HEAD"], f.repoRoot);
    expect(files.split("\n")[0]).toBe(`otto(${SLUG}): phase 1: t1`);
    expect(files).toContain("src/t1.txt");
    expect(files).toContain(`.otto/specs/${SLUG}/tasks.md`);
    expect(files).not.toContain("notes/untracked.txt");
    expect(files).not.toContain("README.md");
    expect(files).not.toContain("shared.txt");
    // tasks.md: the phase's commit sha, recorded next to its task once the commit exists.
    expect(
      (await f.status())
        .split("\n")
        .map((l) => l.trim())
        .sort(),
    ).toEqual(["?? notes/", "?? shared.txt", `M .otto/specs/${SLUG}/tasks.md`, "M README.md"]);
    expect(fs.readFileSync(path.join(f.repoRoot, "README.md"), "utf8")).toBe("# project, edited\n");
    expect(output).toContain("Left uncommitted: shared.txt: it had your changes before the run and a session changed it too");
  });

  it("a phase whose tasks all completed but whose commit is missing (crash before the commit) is committed once, its tasks not run again", async () => {
    const tasks = tasksMd([
      ["t1", "completed", 1, [], "Done before the crash"],
      ["t2", "completed", 1, [], "Also done"],
    ]);
    const f = await setup(tasks, () => undefined, QUIET);
    // The crashed run had stored its baseline (the tree before its first session) in the git dir.
    await openBaseline(f.deps.git, f.repoRoot, path.join(f.repoRoot, ".git"), SLUG);
    f.write("src/t1.txt", "work of the crashed run\n");
    const { output } = await executeSpec(f.deps);
    expect(of(f.calls, "execute-task")).toHaveLength(0);
    expect(of(f.calls, "task-briefing")).toHaveLength(0);
    expect(of(f.calls, "phase-review")).toHaveLength(1);
    const log = await f.log();
    expect(log.map((m) => m.split("\n")[0])).toEqual([`otto(${SLUG}): phase 1: t1, t2`, "Initial commit"]);
    expect(log[0]).toContain("Otto-Phase: greeting/1");
    expect(await git(["show", "--name-only", "--format=", "HEAD"], f.repoRoot)).toContain("src/t1.txt");
    expect(output).toMatch(/Phase 1: .*committed [0-9a-f]{7}/);
    // And a re-run does not commit it again.
    await executeSpec(f.deps);
    expect((await f.log()).length).toBe(2);
    expect(of(f.calls, "execute-task")).toHaveLength(0);
  });

  it("a review with findings is fixed by the primary; a failing gate is a warning, not a stop", async () => {
    const f = await setup(
      ONE,
      (call) => {
        if (call.kind === "phase-review")
          return {
            text: envelope({
              verdict: "revise",
              summary: "bug",
              issues: [{ severity: "major", location: "src/x", problem: "off by one", fix: "+1" }],
            }),
          };
        if (call.kind === "external-assumptions") return { httpError: { message: "provider down" } };
        return undefined;
      },
      { docsAlignment: false },
    );
    const { output } = await executeSpec(f.deps);
    expect(of(f.calls, "phase-fix")[0]?.text).toContain("off by one");
    expect(statuses(f)).toEqual({ t1: "completed" });
    expect(output).toContain("review gate (secondary): revise: 1 major");
    expect(output).toContain("review fixes (primary): fixes applied");
    expect(output).toMatch(/Warnings:\n- external assumptions: OpenCode could not/);
    expect((await f.log())[0]).toContain("Otto-Phase: greeting/1");
  });

  it("a timed-out attempt is aborted and retried in a fresh session; a failed briefing falls back to the documents", async () => {
    let first = true;
    const f = await setup(
      ONE,
      (call) => {
        if (call.kind === "task-briefing") return { httpError: { message: "briefing model unavailable" } };
        if (call.kind === "execute-task" && first) {
          first = false;
          return { hang: true, text: "" };
        }
        return undefined;
      },
      { ...QUIET, taskTimeoutMs: 300 },
    );
    const { report } = await executeSpec(f.deps);
    const attempts = of(f.calls, "execute-task");
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map((a) => a.sessionID)).size).toBe(2);
    expect(f.fake.aborted).toContain(attempts[0]?.sessionID);
    expect(attempts[1]?.text).toContain("Attempt 1 failed: timed out: The model did not finish within 0s");
    expect(attempts[0]?.text).toContain("<requirements_md>");
    expect(attempts[0]?.text).not.toContain("# Your brief");
    expect(f.read(`.otto/specs/${SLUG}/history/run-001.md`)).toContain(
      "- **briefing**: static context (briefing failed: OpenCode could not",
    );
    expect(report.phases[0]?.results[0]).toMatchObject({ status: "completed", attempts: 2 });
  });

  it("resumes after a crash: running goes back to pending, completed tasks and committed phases are left alone", async () => {
    const tasks = tasksMd([
      ["t1", "completed", 1, [], "Done before the crash"],
      ["t2", "running", 1, [], "Running at the crash"],
      ["t3", "pending", 2, ["t1", "t2"], "Next"],
    ]);
    const f = await setup(tasks, () => undefined, QUIET);
    const { output } = await executeSpec(f.deps);
    expect(of(f.calls, "execute-task").map((c) => c.task)).toEqual(["t2", "t3"]);
    expect(output).toContain("Recovered from an earlier run:\n- t2 → pending: was running when an earlier run stopped");
    expect(statuses(f)).toEqual({ t1: "completed", t2: "completed", t3: "completed" });
    // Phase 1 committed, then the run "crashes" before phase 2's commit: the re-run commits only phase 2.
    f.write(`.otto/specs/${SLUG}/tasks.md`, f.tasks().replace(/(id\*\*: t3\n- \*\*status\*\*: )completed/, "$1running"));
    const count = (await f.log()).length;
    const before = f.calls.length;
    await executeSpec(f.deps);
    expect(of(f.calls.slice(before), "execute-task").map((c) => c.task)).toEqual(["t3"]);
    const subjects = (await f.log()).map((m) => m.split("\n")[0]);
    expect(subjects.length).toBe(count + 1);
    expect(subjects.filter((s) => s?.includes("phase 1"))).toHaveLength(1);
  });

  it("cancelling puts the running task back to pending and commits nothing", async () => {
    const f = await setup(
      ONE,
      (call) => {
        if (call.kind === "execute-task") {
          setTimeout(() => f.controller.abort(), 20);
          return { hang: true, text: "" };
        }
        return undefined;
      },
      QUIET,
    );
    const { output, title } = await executeSpec(f.deps);
    expect(statuses(f)).toEqual({ t1: "pending" });
    expect(await f.log()).toHaveLength(1);
    expect(title).toContain("(cancelled)");
    expect(output).toContain("Next step: the run was cancelled; run /otto-spec execute");
  });

  it("refuses a second run of the same spec while one holds the lock, and takes over a dead run's lock", async () => {
    const f = await setup(ONE, () => undefined, QUIET);
    const dir = path.join(f.repoRoot, ".git");
    const release = await lockRun(dir, SLUG, 0);
    const refused = await lockRun(dir, SLUG, 0).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "execute_running" });
    expect((refused as Error & { fix: string }).fix).toContain("Wait for it");
    await expect(lockRun(dir, "other-spec", 0).then((r) => r())).resolves.toBeUndefined();
    await release();
    // A lock left by a killed process (no refresh) is stale after 5 s and taken over.
    fs.mkdirSync(path.join(dir, `otto-execute-${SLUG}.lock`));
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(dir, `otto-execute-${SLUG}.lock`), old, old);
    const taken = await lockRun(dir, SLUG, 0);
    await taken();
    expect(fs.existsSync(path.join(dir, `otto-execute-${SLUG}.lock`))).toBe(false);
  });
});
