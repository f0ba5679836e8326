import fs from "node:fs/promises";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import { parseTasks, specPaths } from "../spec/index.ts";
import { parseCheckboxTasks } from "./openspec-tasks.ts";
import type { BuildTarget } from "./state.ts";

/** The task list as the loop sees it: counts, the next task, and the raw text (to notice edits). */
export interface TaskView {
  total: number;
  done: number;
  next?: { id: string; title: string };
  text: string;
}

/** Where a target's tasks live, and the format the builder must keep. */
export interface TaskSource {
  target: BuildTarget;
  /** Absolute path of tasks.md. */
  file: string;
  /** The folder with the target's documents. */
  dir: string;
  /** How a task is marked done, for the prompts. */
  format: string;
  read(): Promise<TaskView>;
}

export function openspecDir(repoRoot: string, change: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(change)) {
    throw new OttoError("invalid_change", `'${change}' is not an OpenSpec change name.`, "Run `openspec list` to see the changes");
  }
  return path.join(repoRoot, "openspec", "changes", change);
}

/** Pure: an otto tasks.md (completed and skipped tasks count as done). */
export function viewSpecTasks(text: string): TaskView {
  const tasks = parseTasks(text).tasks.tasks;
  const open = tasks.filter((t) => t.status !== "completed" && t.status !== "skipped");
  const next = open[0];
  return { total: tasks.length, done: tasks.length - open.length, next: next && { id: next.id, title: next.title }, text };
}

/** Pure: an OpenSpec checkbox tasks.md. */
export function viewCheckboxTasks(text: string): TaskView {
  const tasks = parseCheckboxTasks(text);
  const next = tasks.find((t) => !t.done);
  return { total: tasks.length, done: tasks.filter((t) => t.done).length, next: next && { id: next.id, title: next.title }, text };
}

export function taskSource(repoRoot: string, target: BuildTarget): TaskSource {
  if (target.kind === "spec") {
    const paths = specPaths(repoRoot, target.name);
    return {
      target,
      file: paths.tasks,
      dir: paths.dir,
      format: "each task's `- **status**:` line (`pending` → `completed`); change nothing else of a task",
      read: async () => viewSpecTasks(await readTasks(paths.tasks, target)),
    };
  }
  const dir = openspecDir(repoRoot, target.name);
  const file = path.join(dir, "tasks.md");
  return {
    target,
    file,
    dir,
    format: "the task's checkbox (`- [ ]` → `- [x]`); change nothing else",
    read: async () => viewCheckboxTasks(await readTasks(file, target)),
  };
}

async function readTasks(file: string, target: BuildTarget): Promise<string> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    const fix =
      target.kind === "spec"
        ? `/otto-spec task generate --spec ${target.name}`
        : `Write openspec/changes/${target.name}/tasks.md (checkbox tasks)`;
    throw new OttoError(
      "no_tasks",
      `${target.kind === "spec" ? "Spec" : "Change"} '${target.name}' has no tasks.md, so there is nothing to build.`,
      fix,
    );
  }
}
