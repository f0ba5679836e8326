import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../../src/core/index.ts";
import { addSpec, addTask, generateTasks, parseQuestions, parseTasks, runDocumentStage } from "../../../../src/spec/index.ts";
import { doc, envelope, fakeSpec, REQUIREMENTS, tasksMd } from "./fake-spec.ts";

let env: ReturnType<typeof fakeSpec> | undefined;
afterEach(() => env?.cleanup());

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; fix?: string }> {
  try {
    await promise;
  } catch (error) {
    if (isOttoError(error)) return { code: error.code, message: error.message, fix: error.fix };
    throw error;
  }
  throw new Error("expected a failure");
}

const DOCS = { "requirements.md": REQUIREMENTS, "research.md": "# Research\n", "design.md": "# Design: v1\n" };

describe("add and the document stages", () => {
  it("add: slug from the prompt, reviewed requirements.md, raised questions appended, history, next step", async () => {
    env = fakeSpec((call) => {
      if (call.kind === "requirements") return { text: doc(REQUIREMENTS) };
      if (call.kind === "review")
        return { text: envelope({ verdict: "revise", summary: "gaps", issues: [{ severity: "major", problem: "no NFR" }] }) };
      if (call.kind === "refine") return { text: doc(`${REQUIREMENTS}\n## Non-Functional Requirements\n- NFR-1: p99 < 5 ms\n`) };
      return undefined;
    });
    const result = await addSpec(env.deps, "Add rate limiting to the API");
    const slug = "add-rate-limiting-api";
    expect(env.read(slug, "requirements.md")).toContain("NFR-1: p99 < 5 ms");
    expect(env.calls.map((c) => `${c.kind} ${c.body.model.modelID} ${c.body.agent}`)).toEqual([
      "requirements primary-1 otto-reviewer",
      "review secondary-1 otto-reviewer",
      "refine primary-1 otto-reviewer",
    ]);
    expect(env.calls[0]?.text).toContain("Add rate limiting to the API");
    expect(env.calls[0]?.text).toContain("**Archetype:** CLI tool");
    expect(env.calls[2]?.text).toContain("[major] no NFR");
    // Every child hangs under the invoking session, in the repository, and is deleted afterwards.
    expect(env.created.map((c) => `${c.parentID} ${c.directory}`)).toEqual(Array(3).fill(`ses_parent ${env.repoRoot}`));
    expect(env.fake.deleted).toHaveLength(3);
    const questions = env.read(slug, "questions.md");
    expect(questions).toContain("## Q1: Limit per key\n- **source**: requirements (2026-02-06)\n- **status**: unanswered");
    expect(questions).toContain("## Q2: Storage");
    expect(env.history(slug)).toEqual(["2026-02-06T12-00-00-000Z-add.md"]);
    expect(env.read(slug, "history/2026-02-06T12-00-00-000Z-add.md")).toContain("## Dialog: generate (acme/primary-1");
    expect(env.progress).toEqual([
      "pass 1/3: primary generating requirements.md",
      "pass 2/3: secondary reviewing (clean session)",
      "pass 3/3: primary incorporating feedback (clean session)",
    ]);
    expect(result.output).toContain(`Written: .otto/specs/${slug}/requirements.md`);
    expect(result.output).toContain("Questions raised: Q1 (Limit per key), Q2 (Storage)");
    expect(result.output.trim().endsWith(`Next step: /otto-spec research --spec ${slug}`)).toBe(true);
  });

  it("add: a failing generator leaves no half-made spec behind", async () => {
    env = fakeSpec(() => ({ httpError: { message: "provider down" } }));
    expect((await failure(addSpec(env.deps, "Add caching"))).code).toBe("model_error");
    expect(env.exists("add-caching", "")).toBe(false);
  });

  it("design re-run: the existing design.md goes into the prompt (refinement), questions are not duplicated", async () => {
    env = fakeSpec((call) =>
      call.kind === "design"
        ? { text: doc("# Design: v2\n\n## Open Questions\n- **Storage**: Should counters live in Redis?") }
        : undefined,
    );
    env.write("rl", {
      ...DOCS,
      "questions.md":
        "# Questions\n\n## Q1: Storage\n- **source**: requirements (2026-02-05)\n- **status**: unanswered\n- **question**: Should counters live in Redis?\n",
    });
    const result = await runDocumentStage(env.deps, "design");
    const prompt = env.calls[0]?.text ?? "";
    expect(prompt).toContain("This is a **refinement run**");
    expect(prompt).toContain("<existing_design_md>\n# Design: v1\n</existing_design_md>");
    expect(prompt).toContain("## Q1: Storage");
    expect(env.read("rl", "design.md")).toBe("# Design: v2\n\n## Open Questions\n- **Storage**: Should counters live in Redis?\n");
    expect(env.read("rl", "questions.md").match(/## Q/g)).toHaveLength(1);
    expect(result.output).toContain("Written: .otto/specs/rl/design.md (refined from the existing file)");
    expect(result.output).toContain("Open questions: 1.");
    expect(result.output).toContain("Next step: /otto-spec task generate --spec rl");
  });

  it("gates name the missing file and the next command; --spec rejects paths", async () => {
    env = fakeSpec(() => undefined);
    env.write("rl", { "requirements.md": REQUIREMENTS });
    expect(await failure(runDocumentStage(env.deps, "design"))).toEqual({
      code: "gate_blocked",
      message: "Cannot run design — research.md has not been written yet.",
      fix: "/otto-spec research --spec rl",
    });
    expect((await failure(runDocumentStage(env.deps, "research", "../rl"))).code).toBe("invalid_slug");
    expect((await failure(runDocumentStage(env.deps, "research", "/etc"))).code).toBe("invalid_slug");
    expect(env.calls).toEqual([]);
  });
});

describe("task generate and task add", () => {
  const cycle = tasksMd([
    ["task-001", "pending", 1, ["task-002"], "A"],
    ["task-002", "pending", 1, ["task-001"], "B"],
  ]);
  const duplicate = tasksMd([
    ["task-001", "pending", 1, [], "A"],
    ["task-001", "pending", 2, [], "B"],
  ]);
  const good = tasksMd([
    ["task-001", "pending", 1, [], "Create store"],
    ["task-002", "pending", 2, ["task-001"], "Add middleware"],
  ]);

  it("sends invalid tasks.md back to the same session with the problems, then writes the valid one", async () => {
    let generated = 0;
    env = fakeSpec((call) => {
      if (call.kind === "tasks" || call.kind === "document-retry") return { text: doc([cycle, duplicate, good][generated++] ?? good) };
      return undefined;
    });
    env.write("rl", DOCS);
    const result = await generateTasks(env.deps);
    const [first, retry1, retry2] = env.calls;
    expect(env.calls.map((c) => c.kind)).toEqual(["tasks", "document-retry", "document-retry", "review"]);
    expect(new Set([first?.sessionID, retry1?.sessionID, retry2?.sessionID]).size).toBe(1);
    expect(retry1?.text).toContain("Dependency cycle: task-001 → task-002 → task-001");
    expect(retry2?.text).toContain("Id 'task-001' is used by Task 1 and Task 2");
    expect(env.read("rl", "tasks.md")).toBe(good);
    expect(result.output).toContain("Generated 2 tasks in 2 parallel groups.");
    expect(result.output).toContain("| 1 | write | acme/primary-1 | generated tasks.md (valid after 3 answers) |");
  });

  it("never writes a tasks.md that is still invalid after two repairs", async () => {
    env = fakeSpec((call) => (call.kind === "tasks" || call.kind === "document-retry" ? { text: doc(cycle) } : undefined));
    env.write("rl", DOCS);
    const error = await failure(generateTasks(env.deps));
    expect(error.code).toBe("invalid_artifact");
    expect(error.message).toContain("wrote an invalid tasks.md 3 times; nothing was written");
    expect(env.exists("rl", "tasks.md")).toBe(false);
    expect(env.history("rl")[0]).toMatch(/task-generate\.md$/);
    expect(env.read("rl", `history/${env.history("rl")[0]}`)).toContain("- **outcome**: failed: The model");
  });

  it("keeps completed tasks whatever the model returns, and says what it restored", async () => {
    env = fakeSpec((call) => {
      if (call.kind === "tasks") {
        expect(call.text).toContain("<existing_tasks_md>");
        // Drops task-001 and marks task-002 completed although it never ran.
        return {
          text: doc(
            tasksMd([
              ["task-002", "completed", 2, ["task-001"], "Add middleware"],
              ["task-003", "pending", 2, ["task-001"], "Docs"],
            ]),
          ),
        };
      }
      return undefined;
    });
    env.write("rl", {
      ...DOCS,
      "tasks.md": tasksMd([
        ["task-001", "completed", 1, [], "Create store"],
        ["task-002", "pending", 2, ["task-001"], "Add middleware"],
      ]),
    });
    const result = await generateTasks(env.deps);
    const tasks = parseTasks(env.read("rl", "tasks.md")).tasks.tasks;
    expect(tasks.map((t) => `${t.id} ${t.status}`)).toEqual(["task-001 completed", "task-002 pending", "task-003 pending"]);
    expect(result.output).toContain("Refined 3 tasks in 2 parallel groups (1 completed, kept as they were).");
    expect(result.output).toContain("Restored: task-001 (completed) was missing from the generated tasks");
    expect(result.output).toContain("Restored: task-002 was marked completed by the generated list but had not been completed");
  });

  it("task add: add-task mode, validated, merged; reports the new task", async () => {
    env = fakeSpec((call) => {
      if (call.kind !== "tasks") return undefined;
      expect(call.text).toContain("This is an **add-task run**");
      expect(call.text).toContain("<task_request>\nAdd a cache\n</task_request>");
      return {
        text: doc(
          tasksMd([
            ["task-001", "pending", 1, [], "Changed title"],
            ["task-002", "pending", 2, ["task-001"], "Add a cache"],
          ]),
        ),
      };
    });
    env.write("rl", { ...DOCS, "tasks.md": tasksMd([["task-001", "completed", 1, [], "Create store"]]) });
    const result = await addTask(env.deps, "rl", "Add a cache");
    expect(env.calls.map((c) => c.kind)).toEqual(["tasks"]);
    expect(parseTasks(env.read("rl", "tasks.md")).tasks.tasks.map((t) => `${t.id} ${t.title}`)).toEqual([
      "task-001 Create store",
      "task-002 Add a cache",
    ]);
    expect(result.output).toContain("Added task-002 (group 2, depends on task-001): Add a cache");
    expect(result.output).toContain("Restored: task-001 is completed; the generated version changed its title");
    expect(env.history("rl")[0]).toMatch(/task-add\.md$/);
  });

  it("task generate and task add append the questions listed after the document to questions.md", async () => {
    const open = "\n## Open Questions\n- **Counter storage**: Redis or memory? Why it matters: deployment. Assumed until answered: memory.";
    env = fakeSpec((call) => {
      if (call.kind === "tasks" && call.text.includes("<task_request>"))
        return {
          text: `${doc(
            tasksMd([
              ["task-001", "pending", 1, [], "Create store"],
              ["task-002", "pending", 2, ["task-001"], "Cache"],
            ]),
          )}\n## Open Questions\n- **Cache TTL**: How long? Why it matters: staleness.`,
        };
      if (call.kind === "tasks") return { text: `${doc(good)}${open}` };
      if (call.kind === "review")
        return { text: envelope({ verdict: "revise", summary: "split", issues: [{ severity: "minor", problem: "x" }] }) };
      // The refiner lists no questions: the generator's must survive the refinement.
      if (call.kind === "refine") return { text: doc(good.replace("Do add middleware.", "Do add the middleware.")) };
      return undefined;
    });
    env.write("rl", {
      ...DOCS,
      "questions.md":
        "# Questions\n\n## Q1: Limit per key\n- **source**: requirements (2026-02-06)\n- **status**: unanswered\n- **question**: What is the default limit per API key?\n",
    });
    const generated = await generateTasks(env.deps);
    expect(env.read("rl", "tasks.md")).toContain("Do add the middleware.");
    expect(env.read("rl", "tasks.md")).not.toContain("Open Questions");
    expect(env.read("rl", "questions.md")).toContain(
      "## Q2: Counter storage\n- **source**: tasks (2026-02-06)\n- **status**: unanswered\n- **question**: Redis or memory?",
    );
    expect(generated.output).toContain("Questions raised: Q2 (Counter storage), added to .otto/specs/rl/questions.md.");
    expect(env.read("rl", `history/${env.history("rl")[0]}`)).toContain("- Q2 raised: Counter storage");

    // Re-running raises nothing new: the same question is not added twice.
    const rerun = await generateTasks(env.deps);
    expect(rerun.output).not.toContain("Questions raised");

    const added = await addTask(env.deps, "rl", "Add a cache");
    expect(env.read("rl", "questions.md")).toContain("## Q3: Cache TTL\n- **source**: task add (2026-02-06)");
    expect(added.output).toContain("Questions raised: Q3 (Cache TTL)");
    expect(parseQuestions(env.read("rl", "questions.md")).problems).toEqual([]);
  });

  it("task add needs tasks.md", async () => {
    env = fakeSpec(() => undefined);
    env.write("rl", DOCS);
    expect((await failure(addTask(env.deps, undefined, "x"))).fix).toBe("/otto-spec task generate --spec rl");
  });
});
