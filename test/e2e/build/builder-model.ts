import fs from "node:fs";
import path from "node:path";
import { text, toolCalls, type RecordedRequest, type ScriptEntry, type Step } from "../../support/index.ts";

/** Which build prompt a builder request carries (phrases of prompts/build-*.md). */
export type BuildKind = "start" | "continue" | "fix" | "verify";

export function buildKindOf(prompt: string): BuildKind | undefined {
  if (prompt.includes("in build mode: otto keeps prompting you")) return "start";
  if (prompt.includes("the project's checks failed when otto ran them")) return "fix";
  if (prompt.includes("says exactly `VERIFIED`")) return "verify";
  if (prompt.startsWith("Otto build: Tasks remaining")) return "continue";
  return undefined;
}

/** The builder's prompts (first turn of each, not the follow-ups after tool calls). */
export function buildPrompts(requests: readonly RecordedRequest[]): BuildKind[] {
  return requests.filter((r) => !r.isTitle && r.lastRole === "user").flatMap((r) => buildKindOf(r.lastUser) ?? []);
}

/** An otto tasks.md from task titles (all pending). */
export function tasksMd(titles: string[]): string {
  const tasks = titles.map(
    (title, i) =>
      `## Task ${i + 1}: ${title}\n- **id**: task-00${i + 1}\n- **status**: pending\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: ${title}.\n- **files**: ["src/task-00${i + 1}.txt"]`,
  );
  return `# Tasks\n\n${tasks.join("\n\n")}\n`;
}

/** Marks the first open task done: the status line of an otto tasks.md, or the first `- [ ]` of a checkbox list. */
export function completeFirst(tasks: string): string {
  return tasks.includes("- **status**: pending")
    ? tasks.replace("- **status**: pending", "- **status**: completed")
    : tasks.replace("- [ ]", "- [x]");
}

/** What a builder turn does: files to write with OpenCode's `write` tool, and the final text. */
export interface TurnPlan {
  writes?: Record<string, string>;
  say: string;
}

export type BuilderBehaviour = (kind: BuildKind, req: RecordedRequest) => TurnPlan;

/** The tasks file named in a build prompt (relative to the project). */
export function tasksFileOf(prompt: string): string | undefined {
  return /`([^`]*tasks\.md)`/.exec(prompt)?.[1];
}

/** One-task-per-turn: complete the next task (and write src/<n>.txt), confirm when asked. */
export function oneTaskPerTurn(project: string): BuilderBehaviour {
  return (kind, req) => {
    if (kind === "verify") return { say: "Checked everything.\nVERIFIED" };
    const rel = tasksFileOf(req.lastUser) ?? "";
    const tasks = fs.readFileSync(path.join(project, rel), "utf8");
    const n = (tasks.match(/status\*\*: completed|- \[x\]/g) ?? []).length + 1;
    return { writes: { [rel]: completeFirst(tasks), [`src/done-${n}.txt`]: `${n}\n` }, say: `Finished task ${n} and marked it done.` };
  };
}

/** The builder session(s): every request carrying a build prompt, answered by `behaviour`. */
export function builderModel(project: string, behaviour: BuilderBehaviour): ScriptEntry {
  return {
    label: "builder",
    times: Infinity,
    match: (req) => !req.isTitle && buildKindOf(req.lastUser) !== undefined,
    reply: (req): Step => {
      const kind = buildKindOf(req.lastUser);
      if (!kind) throw new Error("not a build prompt");
      const plan = behaviour(kind, req);
      if (req.lastRole === "tool" || !plan.writes || Object.keys(plan.writes).length === 0) return text(plan.say);
      return toolCalls(
        Object.entries(plan.writes).map(([file, content]) => ({ name: "write", args: { filePath: path.join(project, file), content } })),
      );
    },
  };
}
