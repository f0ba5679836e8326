import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { TaskStore } from "../../../src/execute/index.ts";
import { parseTasks } from "../../../src/spec/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";
import { totalSteps } from "./store-steps.ts";

const dirs: string[] = [];
const WRITER = path.join(import.meta.dirname, "store-writer.ts");

/** A child's stdout, line by line. */
function lines(child: { stdout: NodeJS.ReadableStream }): AsyncIterator<string> {
  return readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
}

async function nextLine(out: AsyncIterator<string>): Promise<string> {
  const line = await out.next();
  return line.done ? "" : line.value;
}
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
    ])
      .replace("# Tasks", "# Tasks\n\n<!-- a note the user wrote -->")
      .replace("- **status**: pending\n", "- **status**: pending <!-- keep -->\n");
    const file = tempTasks(text);
    const store = await TaskStore.open(file, "s");
    await store.set("task-002", "running");
    expect(fs.readFileSync(file, "utf8")).toBe(
      text.replace("- **id**: task-002\n- **status**: pending", "- **id**: task-002\n- **status**: running"),
    );
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
    const rows = Array.from({ length: writers }, (_, i): [string, string, number, string[], string] => [
      `task-${i}`,
      "pending",
      1,
      [],
      `T${i}`,
    ]);
    const file = tempTasks(tasksMd(rows));
    // Separate stores: no shared in-process queue, so every write contends on the file lock as
    // writers in different processes would (the next test runs real processes).
    const waits: number[] = [];
    const stores = await Promise.all(rows.map(() => TaskStore.open(file, "s", { onLockWait: (ms) => waits.push(ms) })));
    const totals = (
      await Promise.all(
        stores.map(async (store, w) => {
          const out: number[] = [];
          for (let k = 0; k < updates; k++)
            out.push(totalSteps(await store.set(`task-${w}`, k % 2 ? "running" : "pending", { step: String(k) })));
          return out;
        }),
      )
    ).flat();
    // Every write saw every write before it: the totals of the returned lists are 1 … 800, each once.
    expect(totals.sort((a, b) => a - b)).toEqual(Array.from({ length: writers * updates }, (_, i) => i + 1));
    const final = parseTasks(fs.readFileSync(file, "utf8")).tasks;
    expect(final.tasks.map((t) => [t.status, t.extra.step])).toEqual(rows.map(() => ["running", String(updates - 1)]));
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["tasks.md"]); // no temp files or locks left
    expect(waits).toHaveLength(writers * updates);
  }, 120_000);

  it("writers in separate processes lose nothing either (4 processes × 10 updates)", async () => {
    const writers = 4;
    const updates = 10;
    const rows = Array.from({ length: writers }, (_, i): [string, string, number, string[], string] => [
      `task-${i}`,
      "pending",
      1,
      [],
      `T${i}`,
    ]);
    const file = tempTasks(tasksMd(rows));
    const children = rows.map((_, w) =>
      spawn(process.execPath, ["--import", "tsx", WRITER, file, String(w), String(updates)], {
        cwd: import.meta.dirname,
        stdio: ["pipe", "pipe", "inherit"],
      }),
    );
    const outputs = children.map((child) => lines(child));
    // All loaded before any writes, so the writes overlap.
    await Promise.all(outputs.map(nextLine));
    for (const child of children) child.stdin.end("go\n");
    const results = await Promise.all(
      outputs.map(async (out) => JSON.parse((await nextLine(out)) || "{}") as { waits: number[]; totals: number[] }),
    );
    await Promise.all(children.map((child) => (child.exitCode === null ? once(child, "exit") : Promise.resolve())));
    expect(children.map((child) => child.exitCode)).toEqual(rows.map(() => 0));
    expect(results.flatMap((r) => r.totals).sort((a, b) => a - b)).toEqual(Array.from({ length: writers * updates }, (_, i) => i + 1));
    expect(parseTasks(fs.readFileSync(file, "utf8")).tasks.tasks.map((t) => t.extra.step)).toEqual(rows.map(() => String(updates - 1)));
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["tasks.md"]);
  }, 60_000);

  it("a task that runs again or completes loses the reason of its earlier failure or skip", async () => {
    const file = tempTasks(
      tasksMd([
        ["task-001", "pending", 1, [], "One"],
        ["task-002", "pending", 1, [], "Two"],
      ]),
    );
    const store = await TaskStore.open(file, "s");
    const original = fs.readFileSync(file, "utf8");
    await store.set("task-001", "failed", { last_error: "boom", note_keep: "user's" });
    await store.set("task-002", "skipped", { skip_reason: "depends on task-001, which failed" });
    expect(store.list.tasks.map((t) => t.extra)).toEqual([
      { last_error: "boom", note_keep: "user's" },
      { skip_reason: "depends on task-001, which failed" },
    ]);
    await store.set("task-001", "pending");
    await store.set("task-002", "running");
    expect(store.list.tasks.map((t) => t.extra)).toEqual([{ note_keep: "user's" }, {}]);
    await store.set("task-001", "skipped", { skip_reason: "blocked" });
    await store.set("task-001", "failed", { last_error: "again" });
    expect(store.list.tasks[0]?.extra).toEqual({ note_keep: "user's", last_error: "again" });
    await store.set("task-001", "completed");
    await store.set("task-002", "completed");
    // Only the two tasks' status lines (and task-001's own extra field) differ from the start.
    expect(fs.readFileSync(file, "utf8")).toBe(
      original
        .replace(/- \*\*status\*\*: pending/g, "- **status**: completed")
        .replace(`- **files**: ["src/task-001.txt"]\n`, `- **files**: ["src/task-001.txt"]\n- **note_keep**: user's\n`),
    );
  });

  it("removes a multi-line note a person wrote, and keeps a file without a final newline that way", async () => {
    const text = tasksMd([["task-001", "failed", 1, [], "One"]]).replace(/\n$/, "\n- **last_error**: first line\n  second line");
    const file = tempTasks(text);
    const store = await TaskStore.open(file, "s");
    await store.set("task-001", "pending");
    expect(fs.readFileSync(file, "utf8")).toBe(tasksMd([["task-001", "pending", 1, [], "One"]]).replace(/\n$/, ""));
  });

  it("queues the writes of one store in order", async () => {
    const file = tempTasks(tasksMd([["task-001", "pending", 1, [], "One"]]));
    const store = await TaskStore.open(file, "s");
    const order = ["running", "failed", "pending", "running", "completed"] as const;
    await Promise.all(order.map((status) => store.set("task-001", status)));
    expect(parseTasks(fs.readFileSync(file, "utf8")).tasks.tasks[0]?.status).toBe("completed");
  });
});
