import type { Problem } from "../problems.ts";
import { TASK_STATUSES, TaskList, type Task } from "./schema.ts";

/** Ids are referenced from `depends_on` lists, so no spaces, commas or brackets. */
export const TASK_ID = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/**
 * Rules across a whole task list: shape (statuses, groups ≥ 1), well-formed and unique ids, known
 * dependencies, no self-dependency, no cycles, and every dependency in an earlier parallel_group.
 * Messages name the tasks involved and the change to make, so they can go to a model verbatim.
 */
export function validateTasks(list: TaskList): Problem[] {
  const shape = shapeProblems(list);
  if (shape.length > 0) return shape;
  const { tasks } = list;
  const problems: Problem[] = [];
  const add = (message: string): void => void problems.push({ message });
  const byId = new Map<string, Task>();
  const duplicates = new Map<string, Task[]>();

  for (const task of tasks) {
    if (!TASK_ID.test(task.id)) {
      add(
        `Task ${task.number} has id '${task.id}', which is not a valid id; use letters, digits, '-', '_' or '.', starting with a letter (e.g. 'task-${String(task.number).padStart(3, "0")}').`,
      );
    }
    const first = byId.get(task.id);
    if (first) duplicates.set(task.id, [...(duplicates.get(task.id) ?? [first]), task]);
    else byId.set(task.id, task);
  }
  for (const [id, same] of duplicates) {
    add(`Id '${id}' is used by ${joinAnd(same.map((t) => `Task ${t.number}`))}; give each task its own id.`);
  }

  const knownIds = [...byId.keys()].join(", ");
  for (const task of tasks) {
    for (const dep of task.depends_on) {
      const target = byId.get(dep);
      if (dep === task.id) {
        add(`${label(task)} depends on itself; remove '${dep}' from its depends_on.`);
      } else if (!target) {
        add(
          `${label(task)} depends on '${dep}', which is not the id of any task in this file; use one of the existing ids (${knownIds}) or remove it.`,
        );
      } else if (target.parallel_group >= task.parallel_group) {
        add(
          `${label(task)} is in parallel_group ${task.parallel_group} but depends on ${label(target)} in parallel_group ${target.parallel_group}; ` +
            `a dependency must be in an earlier parallel_group. Move ${task.id} to parallel_group ${target.parallel_group + 1} or later, or remove the dependency.`,
        );
      }
    }
  }
  for (const cycle of findCycles(byId)) {
    add(`Dependency cycle: ${cycle.join(" → ")} (each depends on the next); remove one of these dependencies.`);
  }
  return problems;
}

function label(task: Task): string {
  return `${task.id} (Task ${task.number})`;
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Each cycle once, as a path that starts and ends at the same id: [a, b, a]. */
export function findCycles(byId: ReadonlyMap<string, Task>): string[][] {
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (id: string): void => {
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of byId.get(id)?.depends_on ?? []) {
      if (dep === id || !byId.has(dep)) continue; // reported as self or unknown dependencies
      const seen = state.get(dep);
      if (seen === "visiting") cycles.push([...stack.slice(stack.indexOf(dep)), dep]);
      else if (seen === undefined) visit(dep);
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const id of byId.keys()) if (!state.has(id)) visit(id);
  return cycles;
}

/** Lists built in code or read from JSON may not match the schema; say so per task and field. */
function shapeProblems(list: TaskList): Problem[] {
  const result = TaskList.safeParse(list);
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const [, index, field] = issue.path;
    const task = typeof index === "number" ? (list.tasks[index] as Partial<Task> | undefined) : undefined;
    const who = task ? `Task ${String(task.number ?? index)}${task.id ? ` (${task.id})` : ""}` : "The task list";
    const value = task && typeof field === "string" ? (task as Record<string, unknown>)[field] : undefined;
    if (field === "status") return { message: `${who} has status '${String(value)}'; use one of: ${TASK_STATUSES.join(", ")}.` };
    if (field === "id" && !value)
      return { message: `${who} has no id; give it one like 'task-${String(task?.number ?? 1).padStart(3, "0")}'.` };
    if (field === "parallel_group") {
      return { message: `${who} has parallel_group ${String(value)}; parallel groups are whole numbers starting at 1.` };
    }
    const where = issue.path.slice(2).join(".") || issue.path.join(".");
    return { message: `${who}: '${where}' ${issue.message.toLowerCase()}.` };
  });
}
