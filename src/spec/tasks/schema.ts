import { z } from "zod";
import { EXTRA_KEY } from "../fields.ts";

export const TASK_STATUSES = ["pending", "running", "completed", "failed", "skipped"] as const;
export const TaskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** One `## Task N: title` section of tasks.md. */
export const Task = z.object({
  id: z.string().min(1),
  title: z.string(),
  /** The N in `## Task N:`; display order only, `id` is the identity. */
  number: z.number().int().min(0),
  status: TaskStatus,
  /** Tasks of one group run concurrently; groups run in ascending order. */
  parallel_group: z.number().int().min(1),
  depends_on: z.array(z.string()),
  /** Multi-line markdown, kept whole. */
  description: z.string(),
  files: z.array(z.string().min(1)),
  /**
   * The task's acceptance check: one focused command (the test file it adds or must make pass, a
   * typecheck, a script) that exits 0 when the task's outcome holds. Execute runs it after the task.
   */
  verify: z.string().min(1).optional(),
  /** Fields otto does not know (`- **estimate**: 2h`), kept in order so nothing a model or person wrote is lost. */
  extra: z.record(z.string().regex(EXTRA_KEY), z.string()),
});
export type Task = z.infer<typeof Task>;

export const TaskList = z.object({
  /** Text before the first task, e.g. `# Tasks`. */
  preamble: z.string(),
  tasks: z.array(Task),
});
export type TaskList = z.infer<typeof TaskList>;

/** The fields of tasks.md in their canonical order. */
export const TASK_FIELDS = ["id", "status", "parallel_group", "depends_on", "description", "files", "verify"] as const;

/** Spellings models use for known fields. */
export const TASK_FIELD_ALIASES: Readonly<Record<string, (typeof TASK_FIELDS)[number]>> = {
  dependencies: "depends_on",
  depends: "depends_on",
  deps: "depends_on",
  group: "parallel_group",
  file: "files",
  verify_command: "verify",
};

export const TASK_HEADING = /^#{2,3}[ \t]+Task[ \t]*#?(\d+)[ \t]*(?:[:.)\-–—][ \t]*)?(.*)$/i;
