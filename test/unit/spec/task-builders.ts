import type { Task, TaskList } from "../../../src/spec/index.ts";

/** A valid task with everything defaulted from its number; override what the test is about. */
export function task(number: number, overrides: Partial<Task> = {}): Task {
  return {
    id: `task-${String(number).padStart(3, "0")}`,
    title: `Task number ${number}`,
    number,
    status: "pending",
    parallel_group: 1,
    depends_on: [],
    description: `Do step ${number}.`,
    files: [],
    extra: {},
    ...overrides,
  };
}

export function list(...tasks: Task[]): TaskList {
  return { preamble: "# Tasks", tasks };
}
