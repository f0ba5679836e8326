import { OttoError } from "../../core/index.ts";
import { parseTasks } from "../tasks/parse-tasks.ts";
import type { Task } from "../tasks/schema.ts";
import { serializeTasks } from "../tasks/serialize-tasks.ts";
import type { VerbResult } from "./document-stage.ts";
import { updateSpecFile } from "./spec-files.ts";
import { resolveTarget } from "./target.ts";

/**
 * `/otto-spec task verify <id> <command>` (or `--clear`): sets a task's acceptance check, judged
 * against the project's tooling like a generated one. A completed task keeps its check: it was
 * accepted with it.
 */
export async function setTaskVerify(
  repoRoot: string,
  flag: string | undefined,
  id: string,
  command: string | undefined,
  options: { judge?: (task: Task) => string | undefined; secrets?: readonly string[] } = {},
): Promise<VerbResult> {
  const { slug, paths } = resolveTarget(repoRoot, flag, "task-list");
  const task = await updateSpecFile(
    paths.tasks,
    (current) => {
      const parsed = parseTasks(current ?? "");
      if (parsed.problems.length > 0)
        throw new OttoError("invalid_tasks", `tasks.md of ${slug} has problems; fix them first.`, `/otto-spec task list --spec ${slug}`);
      const found = parsed.tasks.tasks.find((t) => t.id === id);
      if (!found)
        throw new OttoError(
          "task_not_found",
          `No task '${id}' in ${slug}'s tasks.md.`,
          `/otto-spec task list --spec ${slug} names the ids.`,
        );
      if (found.status === "completed")
        throw new OttoError(
          "task_completed",
          `${id} is completed; its acceptance check is part of its evidence and stays.`,
          "Add a task for new work: /otto-spec task add <prompt>.",
        );
      const next = { ...found, ...(command ? { verify: command } : {}) };
      if (!command) delete next.verify;
      const why = command ? options.judge?.(next) : undefined;
      if (why)
        throw new OttoError(
          "invalid_verify",
          `The check cannot be ${id}'s: ${why}.`,
          "Use one of the project's own commands, narrowed to what the task changes (e.g. npm test -- <its test file>).",
        );
      const tasks = parsed.tasks.tasks.map((t) => (t.id === id ? next : t));
      return { text: serializeTasks({ ...parsed.tasks, tasks }), result: next };
    },
    options.secrets,
  );
  return {
    title: `otto-spec: ${slug} ${id} verify ${task.verify ? "set" : "cleared"}`,
    output: task.verify
      ? `${id} completes only when \`${task.verify}\` exits 0 after it runs.\n\nNext step: /otto-spec execute --spec ${slug}`
      : `${id} has no acceptance check: it completes on its session's evidence (changed files or NO_CHANGES).\n\nNext step: /otto-spec execute --spec ${slug}`,
  };
}
