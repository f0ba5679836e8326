import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseQuestions, parseTasks, runAdhoc } from "../../../../src/spec/index.ts";
import { checkQuestionsEdit, checkTasksEdit } from "../../../../src/spec/pipeline/run-guard.ts";
import { fakeSpec, REQUIREMENTS, tasksMd } from "./fake-spec.ts";

let env: ReturnType<typeof fakeSpec> | undefined;
afterEach(() => env?.cleanup());

const BEFORE = tasksMd([
  ["task-001", "completed", 1, [], "Create store"],
  ["task-002", "pending", 2, ["task-001"], "Add middleware"],
]);
const QUESTIONS =
  "# Questions\n\n## Q1: Limit\n- **source**: requirements (2026-02-06)\n- **status**: unanswered\n- **question**: What limit?\n";

describe("run guard (pure)", () => {
  it("keeps an unchanged file, a valid edit, and a new valid task", () => {
    expect(checkTasksEdit(BEFORE, BEFORE)).toEqual({ action: "keep" });
    expect(checkTasksEdit(BEFORE, BEFORE.replace("Do add middleware.", "Do add middleware with a token bucket."))).toEqual({
      action: "keep",
    });
    const added = tasksMd([
      ["task-001", "completed", 1, [], "Create store"],
      ["task-002", "pending", 2, ["task-001"], "Add middleware"],
      ["task-003", "pending", 3, ["task-002"], "Docs"],
    ]);
    expect(checkTasksEdit(BEFORE, added)).toEqual({ action: "keep" });
  });

  it("restores a completed task the run changed or dropped, with the merge task generate uses", () => {
    const changed = checkTasksEdit(BEFORE, BEFORE.replace("- **status**: completed", "- **status**: pending"));
    expect(changed.action).toBe("write");
    if (changed.action !== "write") return;
    expect(parseTasks(changed.text).tasks.tasks.map((t) => `${t.id} ${t.status}`)).toEqual(["task-001 completed", "task-002 pending"]);
    expect(changed.notes.join("\n")).toContain("task-001 is completed; the generated version changed its status");
    const dropped = checkTasksEdit(BEFORE, tasksMd([["task-002", "pending", 2, ["task-001"], "Add middleware"]]));
    expect(dropped.action === "write" && parseTasks(dropped.text).tasks.tasks.map((t) => t.id)).toEqual(["task-001", "task-002"]);
  });

  it("restores the previous file when the edit does not parse or validate", () => {
    const broken = checkTasksEdit(BEFORE, `${BEFORE}\nSome notes between tasks.\n## Task 3: x\n- **id**: task-003\n`);
    expect(broken.action).toBe("restore");
    const cycle = tasksMd([
      ["task-001", "completed", 1, [], "Create store"],
      ["task-002", "pending", 1, ["task-002"], "Add middleware"],
    ]);
    const verdict = checkTasksEdit(BEFORE, cycle);
    expect(verdict.action === "restore" && verdict.problems).toContain("task-002");
    expect(checkTasksEdit(BEFORE, undefined)).toMatchObject({ action: "restore" });
    expect(checkTasksEdit(undefined, "# Tasks\n\nnot a task\n")).toMatchObject({ action: "restore" });
  });

  it("restores questions.md only when it no longer parses", () => {
    expect(checkQuestionsEdit(QUESTIONS, QUESTIONS.replace("unanswered", "answered\n- **answer**: 100/min"))).toEqual({ action: "keep" });
    const broken = checkQuestionsEdit(QUESTIONS, "# Questions\n\n## Q1: Limit\nfree text\n");
    expect(broken.action === "restore" && broken.problems).toContain("questions.md:3");
  });
});

describe("run: spec files checked after the executor", () => {
  it("restores tasks.md and questions.md the executor broke, keeps its versions in history, records raised questions", async () => {
    env = fakeSpec((call) => {
      if (call.kind !== "spec-run") return undefined;
      // The executor edits the files directly (as OpenCode's edit tool would) and breaks both.
      fs.writeFileSync(path.join(env!.spec("rl"), "tasks.md"), BEFORE.replace("- **id**: task-001", "- **id**: task 1"));
      fs.writeFileSync(path.join(env!.spec("rl"), "questions.md"), "# Questions\n\n## Q1: Limit\nfree text\n");
      return { text: "Done.\n\n## Open Questions\n- **Burst size**: How large may a burst be? Why it matters: bucket size." };
    });
    env.write("rl", { "requirements.md": REQUIREMENTS, "tasks.md": BEFORE, "questions.md": QUESTIONS });
    const result = await runAdhoc(env.deps, undefined, "Rename task-001");
    expect(env.read("rl", "tasks.md")).toBe(BEFORE);
    const questions = parseQuestions(env.read("rl", "questions.md"));
    expect(questions.problems).toEqual([]);
    expect(questions.questions.questions.map((q) => `Q${q.number} ${q.title} ${q.source}`)).toEqual([
      "Q1 Limit requirements (2026-02-06)",
      "Q2 Burst size run (2026-02-06)",
    ]);
    expect(result.output).toContain("Warning: the run left .otto/specs/rl/tasks.md invalid, so its previous version was restored");
    expect(result.output).toContain("Warning: the run left .otto/specs/rl/questions.md invalid");
    expect(result.output).toContain("Q2 raised: Burst size");
    const rejected = env.history("rl").filter((f) => f.includes("run-rejected"));
    expect(rejected).toEqual(["2026-02-06T12-00-00-000Z-run-rejected-questions.md", "2026-02-06T12-00-00-000Z-run-rejected-tasks.md"]);
    expect(env.read("rl", `history/${rejected[1]}`)).toContain("- **id**: task 1");
  });

  it("keeps a valid edit but restores the completed task it changed, and says so", async () => {
    env = fakeSpec((call) => {
      if (call.kind !== "spec-run") return undefined;
      fs.writeFileSync(
        path.join(env!.spec("rl"), "tasks.md"),
        BEFORE.replace("Create store", "Create a store").replace("Add middleware", "Add the middleware"),
      );
      return { text: "Renamed the tasks." };
    });
    env.write("rl", { "requirements.md": REQUIREMENTS, "tasks.md": BEFORE });
    const result = await runAdhoc(env.deps, undefined, "Rename the tasks");
    const tasks = parseTasks(env.read("rl", "tasks.md")).tasks.tasks;
    expect(tasks.map((t) => `${t.id} ${t.status} ${t.title}`)).toEqual([
      "task-001 completed Create store",
      "task-002 pending Add the middleware",
    ]);
    expect(result.output).toContain("Restored in tasks.md: task-001 is completed; the generated version changed its title");
  });

  it("checks the files also when the run fails midway", async () => {
    env = fakeSpec((call) => {
      if (call.kind !== "spec-run") return undefined;
      fs.writeFileSync(path.join(env!.spec("rl"), "tasks.md"), "# Tasks\n\n## Task 1: half written\n");
      return { httpError: { message: "provider down" } };
    });
    env.write("rl", { "requirements.md": REQUIREMENTS, "tasks.md": BEFORE });
    await expect(runAdhoc(env.deps, undefined, "Rewrite the tasks")).rejects.toThrow();
    expect(env.read("rl", "tasks.md")).toBe(BEFORE);
    const record = env.history("rl").find((f) => f.endsWith("-run.md")) ?? "";
    expect(env.read("rl", `history/${record}`)).toContain("its previous version was restored");
  });

  it("resolves only the primary model: an unset secondary is no failure and no note", async () => {
    env = fakeSpec((call) => (call.kind === "spec-run" ? { text: "Answer." } : undefined));
    env.deps.models = { primary: "acme/primary-1" };
    env.write("rl", { "requirements.md": REQUIREMENTS });
    const result = await runAdhoc(env.deps, undefined, "Summarize");
    expect(env.calls.map((c) => c.body.model.modelID)).toEqual(["primary-1"]);
    expect(result.output).not.toContain("secondary");
    expect(env.exists("rl", "questions.md")).toBe(false);
  });
});
