import fs from "node:fs";
import { listSpecs, parseTasks, resolveSpec, runnableTasks, specPaths, summarizeTasks, type TaskList } from "../spec/index.ts";
import { crashed, type BuildState } from "./state.ts";
import { activeChanges } from "./targets.ts";

/** ready: a task can start; blocked: work remains but no task's dependencies are met; all_done: nothing left. */
export type WorkState = "ready" | "blocked" | "all_done" | "no_tasks";

export interface Progress {
  done: number;
  total: number;
  percent: number;
}

/** Pure: progress and state of a task list (skipped tasks count as done, as in the build loop). */
export function workState(list: TaskList): { progress: Progress; state: WorkState } {
  const summary = summarizeTasks(list);
  const done = summary.byStatus.completed + summary.byStatus.skipped;
  const progress = { done, total: summary.total, percent: summary.total ? Math.round((100 * done) / summary.total) : 0 };
  if (summary.total === 0) return { progress, state: "no_tasks" };
  if (done === summary.total) return { progress, state: "all_done" };
  return { progress, state: runnableTasks(list).length > 0 || summary.byStatus.running > 0 ? "ready" : "blocked" };
}

/**
 * The builder sessions of a spec's running loops (from `.otto/build/` states); a loop whose process
 * died while running shows as `stopped`, so no tool waits on it.
 */
function sessionsFor(
  states: readonly BuildState[],
  slug: string,
  kind: BuildState["target"]["kind"] = "spec",
): Array<{ sessionID: string; status: string; iteration: number }> {
  return states
    .filter((s) => s.target.kind === kind && s.target.name === slug && s.status === "running" && s.sessionID)
    .map((s) => ({ sessionID: s.sessionID ?? "", status: crashed(s) ? "stopped" : s.status, iteration: s.iteration }));
}

function readList(repoRoot: string, slug: string): TaskList | undefined {
  try {
    return parseTasks(fs.readFileSync(specPaths(repoRoot, slug).tasks, "utf8")).tasks;
  } catch {
    // No tasks.md yet: the spec is still being planned.
    return undefined;
  }
}

/** `/otto-spec list --json`: otto's specs, and the active OpenSpec changes when `openspec/` exists. */
export function specListJson(repoRoot: string, states: readonly BuildState[]): string {
  const specs = listSpecs(repoRoot).map((s) => {
    const list = readList(repoRoot, s.slug);
    const work = list ? workState(list) : { progress: { done: 0, total: 0, percent: 0 }, state: "no_tasks" as const };
    return { slug: s.slug, artifacts: s.artifacts, ...work, sessions: sessionsFor(states, s.slug) };
  });
  const openspec = activeChanges(repoRoot).map((c) => {
    const progress = { done: c.done, total: c.total, percent: c.total ? Math.round((100 * c.done) / c.total) : 0 };
    const state = c.total === 0 ? "no_tasks" : c.done === c.total ? "all_done" : "ready";
    return { change: c.name, progress, state, sessions: sessionsFor(states, c.name, "openspec") };
  });
  return JSON.stringify({ specs, openspec }, null, 2);
}

/** `/otto-spec task list --json`. */
export function taskListJson(repoRoot: string, flag: string | undefined, states: readonly BuildState[]): string {
  const slug = resolveSpec(listSpecs(repoRoot), flag);
  const list = readList(repoRoot, slug) ?? { preamble: "", tasks: [] };
  const tasks = list.tasks.map((t) => ({
    id: t.id,
    title: t.title,
    status: t.status,
    parallel_group: t.parallel_group,
    depends_on: t.depends_on,
  }));
  return JSON.stringify({ slug, ...workState(list), tasks, sessions: sessionsFor(states, slug) }, null, 2);
}
