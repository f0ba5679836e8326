import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Task } from "../../../src/spec/index.ts";
import { parseTasks, serializeTasks, TaskList, validateTasks } from "../../../src/spec/index.ts";

const FIXTURES = fileURLToPath(new URL("../../fixtures/spec/", import.meta.url));
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), "utf8");

/** parse, and fail the test on any problem. */
function clean(text: string): TaskList {
  const { tasks, problems } = parseTasks(text);
  expect(problems).toEqual([]);
  return tasks;
}

function one(fields: string): Task {
  const [task] = clean(`# Tasks\n\n## Task 1: Do it\n${fields}\n`).tasks;
  if (!task) throw new Error("no task parsed");
  return task;
}

const BASE = "- **id**: task-001\n- **status**: pending\n- **parallel_group**: 1";

describe("parseTasks / serializeTasks round trips", () => {
  it.each(["tasks-canonical.md", "tasks-messy-model.expected.md", "tasks-design-doc.md"])(
    "%s is already canonical: serialize(parse(text)) === text",
    (name) => {
      const text = fixture(name);
      expect(serializeTasks(clean(text))).toBe(name === "tasks-design-doc.md" ? text.replace(/ +<!--.*-->/g, "") : text);
    },
  );

  it.each(["tasks-canonical.md", "tasks-design-doc.md", "tasks-messy-model.md", "tasks-broken.md"])(
    "%s: serialize is stable and parse∘serialize is the identity on the model",
    (name) => {
      const first = parseTasks(fixture(name)).tasks;
      const text = serializeTasks(first);
      const again = parseTasks(text);
      expect(again.tasks).toEqual(first);
      expect(serializeTasks(again.tasks)).toBe(text);
      expect(TaskList.safeParse(first).success).toBe(true);
    },
  );

  it("reads the messy model-written file into the canonical one", () => {
    expect(serializeTasks(clean(fixture("tasks-messy-model.md")))).toBe(fixture("tasks-messy-model.expected.md"));
  });

  it("reads every field of the canonical example", () => {
    const { tasks, preamble } = clean(fixture("tasks-design-doc.md"));
    expect(preamble).toBe("# Tasks");
    expect(tasks.map((t) => [t.number, t.id, t.title, t.parallel_group, t.depends_on])).toEqual([
      [1, "task-001", "Create JWT middleware", 1, []],
      [2, "task-002", "Add login endpoint", 1, []],
      [3, "task-003", "Integrate auth into routes", 2, ["task-001", "task-002"]],
    ]);
    expect(tasks[0]?.files).toEqual(["internal/auth/jwt.go", "internal/auth/jwt_test.go"]);
    expect(tasks[0]?.status).toBe("pending");
    expect(validateTasks({ preamble, tasks })).toEqual([]);
  });

  it("keeps multi-line values with their line breaks, code blocks and nested bullets", () => {
    const task = clean(fixture("tasks-messy-model.md")).tasks[0];
    expect(task?.description).toBe(
      [
        "Create the JWT validation middleware in `internal/auth`.",
        "It must:",
        "- read the token from the `Authorization` header",
        "- reject expired tokens with 401",
        "  - and log the reason at debug level",
        "",
        "Example:",
        "",
        "```go",
        "func JWT(next http.Handler) http.Handler {",
        "    // - **status**: this is code, not a field",
        "    return next",
        "}",
        "```",
      ].join("\n"),
    );
    expect(clean(fixture("tasks-canonical.md")).tasks[0]?.extra).toEqual({
      last_error: "timeout while running go test\n(retried and passed)",
    });
  });

  it("round-trips models built in code, whatever their whitespace", () => {
    const list: TaskList = {
      preamble: "\n# Tasks\n\nIntro\n",
      tasks: [
        {
          id: "task-001",
          title: "  Spaced  ",
          number: 1,
          status: "running",
          parallel_group: 2,
          depends_on: [],
          description: "\n\n   First\n    indented\n    block\n\n- **status**: inside\n## Task 9: not a heading\n---\n",
          files: ['we"ird, name.ts'],
          extra: { note: "", multi_line: "a\n\n  b" },
        },
      ],
    };
    const text = serializeTasks(list);
    expect(serializeTasks(clean(text))).toBe(text);
    const task = clean(text).tasks[0];
    expect(task?.description).toBe("First\n    indented\n    block\n\n- **status**: inside\n## Task 9: not a heading\n---");
    expect(task?.files).toEqual(['we"ird, name.ts']);
    expect(task?.extra).toEqual({ note: "", multi_line: "a\n\nb" });
  });
});

describe("parseTasks tolerance", () => {
  it.each([
    ["[]", []],
    ["none", []],
    ["None <!-- no deps -->", []],
    ["", []],
    ["[task-001, task-002]", ["task-001", "task-002"]],
    ['["task-001"]', ["task-001"]],
    ["task-001, task-002", ["task-001", "task-002"]],
    ["task-001 task-002", ["task-001", "task-002"]],
    ["`task-001`, `task-002`", ["task-001", "task-002"]],
  ])("depends_on %j", (value, expected) => {
    expect(one(`${BASE}\n- **depends_on**: ${value}\n- **description**: x`).depends_on).toEqual(expected);
  });

  it("depends_on as a bullet list on the following lines", () => {
    expect(one(`${BASE}\n- **depends_on**:\n  - task-002\n  - task-003\n- **description**: x`).depends_on).toEqual([
      "task-002",
      "task-003",
    ]);
  });

  it.each([
    ['["a.ts", "b/c.ts"]', ["a.ts", "b/c.ts"]],
    ["[a.ts, b/c.ts]", ["a.ts", "b/c.ts"]],
    ["a.ts, b/c.ts", ["a.ts", "b/c.ts"]],
    ["`a.ts`, `b/c.ts`", ["a.ts", "b/c.ts"]],
    ["`a.ts` and `b/c.ts`", ["a.ts", "b/c.ts"]],
    ["[]", []],
    ["\n  - a.ts\n  - `b/c.ts`", ["a.ts", "b/c.ts"]],
    ['[\n    "a.ts",\n    "b/c.ts"\n  ]', ["a.ts", "b/c.ts"]],
    // JSON is tried only for `["…`: a comma inside a quoted name shows whether it was read as JSON.
    ['[ "a, b.ts", "c.ts" ]', ["a, b.ts", "c.ts"]],
    ['["a.ts", 1]', ["a.ts", "1"]],
  ])("files %j", (value, expected) => {
    expect(one(`${BASE}\n- **description**: x\n- **files**: ${value}`).files).toEqual(expected);
  });

  it.each([
    ["- **id:** task-007", "task-007"],
    ["- **ID**: task-007", "task-007"],
    ["* **id**: `task-007`", "task-007"],
    ["+ **id** : task-007 <!-- keep -->", "task-007"],
  ])("field line variant %j", (line, id) => {
    expect(one(`${line}\n- **status**: pending\n- **parallel_group**: 1\n- **description**: x`).id).toBe(id);
  });

  it.each([
    ["pending          <!-- pending | running | completed | failed | skipped -->", "pending"],
    ["Completed", "completed"],
    ["**done**", "completed"],
    ["in progress", "running"],
    ["FAILED", "failed"],
    ["skipped", "skipped"],
  ])("status %j", (value, status) => {
    expect(one(`- **id**: task-001\n- **status**: ${value}\n- **parallel_group**: 1\n- **description**: x`).status).toBe(status);
  });

  it("reads the group number out of 'Phase 3' and comments", () => {
    expect(one(`- **id**: t\n- **status**: pending\n- **parallel_group**: 2 <!-- g -->\n- **description**: x`).parallel_group).toBe(2);
    expect(one(`- **id**: t\n- **status**: pending\n- **parallel_group**: Phase 3\n- **description**: x`).parallel_group).toBe(3);
  });

  it("keeps '- item' bullets and bold sub-bullets in the description, and stops at the next known field", () => {
    const task = one(`${BASE}\n- **description**: Steps:\n- first\n- **Note**: still the description\n\n- last\n- **files**: [a.ts]`);
    expect(task.description).toBe("Steps:\n- first\n- **Note**: still the description\n\n- last");
    expect(task.files).toEqual(["a.ts"]);
  });

  it("stops a description at a snake_case extra field and keeps the extra", () => {
    const task = one(`${BASE}\n- **description**: Do it\n- **estimate**: 2h\n- **last_error**: boom`);
    expect(task.description).toBe("Do it");
    expect(task.extra).toEqual({ estimate: "2h", last_error: "boom" });
  });

  it("reads a field named like an Object property as an extra, not an alias", () => {
    expect(one(`${BASE}\n- **description**: Do it\n- **constructor**: x\n- **to_string**: y`).extra).toEqual({
      constructor: "x",
      to_string: "y",
    });
  });

  it("keeps extra-field-looking lines of a fenced code block in the description", () => {
    const task = one(`${BASE}\n- **description**: Write:\n\`\`\`md\n- **note**: x\n\`\`\`\n- **files**: [y.ts]\n- **note**: real`);
    expect(task.description).toBe("Write:\n```md\n- **note**: x\n```");
    expect(task.files).toEqual(["y.ts"]);
    expect(task.extra).toEqual({ note: "real" });
  });

  it("ends a description at a known field even inside an unclosed fence, so a truncated block cannot swallow fields", () => {
    const task = one(`${BASE}\n- **description**: Write:\n\`\`\`ts\nconst a = 1;\n- **files**: [y.ts]`);
    expect(task.description).toBe("Write:\n```ts\nconst a = 1;");
    expect(task.files).toEqual(["y.ts"]);
  });

  it("treats a known field nested deeper than the description as part of it", () => {
    const task = one(`${BASE}\n- **description**: Add columns:\n  - **status**: an enum column\n- **files**: [m.sql]`);
    expect(task.status).toBe("pending");
    expect(task.description).toBe("Add columns:\n- **status**: an enum column");
  });

  it("reads headings with '—', '.', no separator, level 3, and drops '---' separators", () => {
    const text = `# Tasks\n\n### Task 1 — A\n${BASE}\n- **description**: x\n\n---\n\n## Task 2. B\n- **id**: task-002\n- **status**: pending\n- **parallel_group**: 1\n- **description**: y\n\n***\n`;
    const list = clean(text);
    expect(list.tasks.map((t) => [t.number, t.title, t.description])).toEqual([
      [1, "A", "x"],
      [2, "B", "y"],
    ]);
  });

  it("uses prose under the heading as the description when there is no description field", () => {
    expect(one(`Write the README.\n\nMention install.\n${BASE}`).description).toBe("Write the README.\n\nMention install.");
  });

  it("reads CRLF files and aliases such as 'Dependencies' and 'Group'", () => {
    const text =
      "# Tasks\r\n\r\n## Task 1: A\r\n- **id**: a\r\n- **Status**: pending\r\n- **Group**: 2\r\n- **Dependencies**: b\r\n- **description**: one\r\n  two\r\n";
    const task = clean(text).tasks[0];
    expect(task).toMatchObject({ id: "a", parallel_group: 2, depends_on: ["b"], description: "one\ntwo" });
  });
});

describe("parseTasks problems", () => {
  it("reports missing and unreadable fields with 1-based lines instead of throwing", () => {
    const { tasks, problems } = parseTasks(fixture("tasks-broken.md"));
    expect(problems).toEqual([
      { line: 3, message: "Line 3 is a task field but has no task heading above it; start each task with '## Task <n>: <title>'." },
      { line: 5, message: "Task 1 (task-001) has no 'status' field; add a line like '- **status**: pending' under its heading." },
      { line: 5, message: "Task 1 (task-001) has no 'parallel_group' field; add a line like '- **parallel_group**: 1' under its heading." },
      { line: 9, message: "Task 2 (task-002) has no title; write '## Task 2: <short title>'." },
      { line: 11, message: "Task 2 (task-002) has status 'half-done'; use one of: pending, running, completed, failed, skipped." },
      { line: 12, message: "Task 2 (task-002) has parallel_group 'soon'; use a whole number starting at 1." },
      { line: 13, message: "Task 2 (task-002) has a second 'status' field (the first is on line 11); keep only one." },
      { line: 16, message: "Task 3 has no 'id' field; add a line like '- **id**: task-003' under its heading." },
      { line: 19, message: "Task 3 has an empty description; say what the task must do." },
    ]);
    expect(tasks.tasks).toHaveLength(3);
  });

  it("reports a file without tasks", () => {
    expect(parseTasks("# Tasks\n\nNothing yet.\n").problems).toEqual([
      {
        line: 1,
        message:
          "No tasks found. Each task starts with a heading like '## Task 1: <title>' followed by fields such as '- **id**: task-001'.",
      },
    ]);
    expect(parseTasks("").tasks).toEqual({ preamble: "# Tasks", tasks: [] });
  });

  it("reports a missing description and stray text after a one-line field", () => {
    const { problems } = parseTasks(`## Task 1: A\n${BASE}\nstray text\n`);
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [1, "Task 1 (task-001) has no 'description' field; add a line like '- **description**: <what this task must do>' under its heading."],
      [
        5,
        "Task 1 (task-001): line 5 is not part of any field ('parallel_group' takes one line); move it into the description or remove it.",
      ],
    ]);
  });
});

describe("parseTasks list continuation", () => {
  it("reports prose after a list instead of reading it as file names", () => {
    const { tasks, problems } = parseTasks(`## Task 1: A\n${BASE}\n- **description**: x\n- **files**:\n  - a.ts\nThese files are new.\n`);
    expect(tasks.tasks[0]?.files).toEqual(["a.ts"]);
    expect(problems).toEqual([
      {
        line: 8,
        message:
          "Task 1 (task-001): line 8 is not part of any field ('files' takes a list of items); move it into the description or remove it.",
      },
    ]);
  });
});
