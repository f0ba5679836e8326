import { describe, expect, it } from "vitest";
import { parseTasks, serializeTasks } from "../../../src/spec/index.ts";
import { checkTasksText } from "../../../src/spec/pipeline/index.ts";
import { list, task } from "./task-builders.ts";

describe("tasks.md `verify`: a task's acceptance check", () => {
  it("round-trips, in backticks or bare, and hand-written files without it keep parsing", () => {
    const text = serializeTasks(list(task(1, { verify: "npm test -- test/a.test.ts" }), task(2)));
    expect(text).toContain("- **verify**: `npm test -- test/a.test.ts`");
    const parsed = parseTasks(text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.tasks.tasks.map((t) => t.verify)).toEqual(["npm test -- test/a.test.ts", undefined]);
    expect(serializeTasks(parsed.tasks)).toBe(text);
    const bare = parseTasks(text.replace("`npm test -- test/a.test.ts`", "go test ./..."));
    expect(bare.tasks.tasks[0]?.verify).toBe("go test ./...");
    expect(parseTasks(text.replace("`npm test -- test/a.test.ts`", "")).problems[0]?.message).toMatch(/empty verify field/);
  });

  it("a generated tasks.md whose check cannot run here is sent back with the reason; completed tasks are not judged", () => {
    const text = serializeTasks(
      list(task(1, { verify: "rake test" }), task(2, { verify: "npm test", status: "completed", parallel_group: 1 })),
    );
    const judged: string[] = [];
    const check = checkTasksText(text, undefined, (t) => {
      judged.push(t.id);
      return t.verify === "rake test" ? "`rake test` runs rake, which is none of this project's tools" : undefined;
    });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problems).toMatch(
      /Task 1 \(task-001\): its verify command cannot be the task's check: `rake test` runs rake/,
    );
    expect(judged).toEqual(["task-001"]);
  });
});
