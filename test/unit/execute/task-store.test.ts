import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TaskStore } from "../../../src/execute/index.ts";
import { parseTasks } from "../../../src/spec/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempTasks(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-store-"));
  dirs.push(dir);
  const file = path.join(dir, "tasks.md");
  fs.writeFileSync(file, text);
  return file;
}

describe("TaskStore", () => {
  it("changes only the status line (and the extra fields it is given)", async () => {
    const text = tasksMd([
      ["task-001", "pending", 1, [], "One"],
      ["task-002", "pending", 1, [], "Two"],
    ]).replace("# Tasks", "# Tasks\n\n<!-- a note the user wrote -->").replace("- **status**: pending\n", "- **status**: pending <!-- keep -->\n");
    const file = tempTasks(text);
    const store = await TaskStore.open(file, "s");
    await store.set("task-002", "running");
    expect(fs.readFileSync(file, "utf8")).toBe(text.replace("- **id**: task-002\n- **status**: pending", "- **id**: task-002\n- **status**: running"));
    await store.set("task-001", "running");
    expect(fs.readFileSync(file, "utf8")).toContain("- **status**: running <!-- keep -->\n");
    await store.set("task-002", "failed", { last_error: "boom\nstack line" });
    expect(fs.readFileSync(file, "utf8")).toContain("- **last_error**: boom\n");
    expect(store.list.tasks.map((t) => t.status)).toEqual(["running", "failed"]);
  });

  it("refuses a tasks.md with problems, naming them", async () => {
    const file = tempTasks(tasksMd([["task-001", "pending", 1, ["task-009"], "One"]]));
    await expect(TaskStore.open(file, "s")).rejects.toThrow(/depends on 'task-009'/);
  });

  it("16 concurrent writers × 50 status updates to one tasks.md lose nothing", async () => {
    const writers = 16;
    const updates = 50;
    const rows = Array.from({ length: writers }, (_, i): [string, string, number, string[], string] => [`task-${i}`, "pending", 1, [], `T${i}`]);
    const file = tempTasks(tasksMd(rows));
    // Separate stores: no shared in-process queue, so every write contends on the file lock as
    // writers in different processes would.
    const waits: number[] = [];
    const stores = await Promise.all(rows.map(() => TaskStore.open(file, "s", { onLockWait: (ms) => waits.push(ms) })));
    await Promise.all(
      stores.map(async (store, w) => {
        for (let k = 0; k < updates; k++) await store.set(`task-${w}`, k % 2 ? "running" : "pending", { step: String(k) });
      }),
    );
    const final = parseTasks(fs.readFileSync(file, "utf8")).tasks.tasks;
    expect(final.map((t) => t.extra.step)).toEqual(rows.map(() => String(updates - 1)));
    expect(final.map((t) => t.status)).toEqual(rows.map(() => "running"));
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["tasks.md"]); // no temp files or locks left
    expect(waits).toHaveLength(writers * updates);
  }, 60_000);

  it("queues the writes of one store in order", async () => {
    const file = tempTasks(tasksMd([["task-001", "pending", 1, [], "One"]]));
    const store = await TaskStore.open(file, "s");
    const order = ["running", "failed", "pending", "running", "completed"] as const;
    await Promise.all(order.map((status) => store.set("task-001", status)));
    expect(parseTasks(fs.readFileSync(file, "utf8")).tasks.tasks[0]?.status).toBe("completed");
  });
});
