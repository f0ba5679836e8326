import { formatField } from "../fields.ts";
import { splitLines, trimBlankLines } from "../sections.ts";
import type { Task, TaskList } from "./schema.ts";

/**
 * Writes tasks.md in its canonical format (docs/spec.md). Output is stable: parsing it gives the same
 * model back, so serialize(parse(serialize(x))) === serialize(x).
 */
export function serializeTasks(list: TaskList): string {
  // An empty preamble is written as the `# Tasks` title parsing would give it anyway.
  const preamble = trimBlankLines(splitLines(list.preamble)).join("\n") || "# Tasks";
  return `${[preamble, ...list.tasks.map(serializeTask)].join("\n\n")}\n`;
}

export function serializeTask(task: Task): string {
  const lines = [
    `## Task ${task.number}: ${task.title.replace(/\s*\n\s*/g, " ").trim()}`.trimEnd(),
    `- **id**: ${task.id}`,
    `- **status**: ${task.status}`,
    `- **parallel_group**: ${task.parallel_group}`,
    `- **depends_on**: [${task.depends_on.join(", ")}]`,
    ...formatField("description", task.description),
  ];
  if (task.files.length > 0) lines.push(`- **files**: [${task.files.map((f) => JSON.stringify(f)).join(", ")}]`);
  // In backticks, as a command reads in markdown; one with a backtick of its own is written bare.
  if (task.verify) lines.push(`- **verify**: ${task.verify.includes("`") ? task.verify : `\`${task.verify}\``}`);
  for (const [key, value] of Object.entries(task.extra)) lines.push(...formatField(key, value));
  return lines.join("\n");
}
