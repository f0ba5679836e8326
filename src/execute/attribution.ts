import type { TimeWindow } from "../session/index.ts";

/*
 * Which task of a parallel phase changed which file. The tasks share one working tree, so the
 * diff between an attempt's snapshots is "what changed while it ran", the other tasks' work
 * included. What OpenCode's tool hooks recorded per session (src/session/writes.ts) splits it:
 * a path a task's file tools wrote is that task's; a path no file tool wrote was changed by a
 * shell (or something otto cannot see), and is a task's only when that task alone ran shell
 * commands meanwhile. Otherwise it is listed once, on the phase. Pure; task-files.ts feeds it.
 */

/** What one session of the phase did, paths relative to the repository. */
export interface SessionRecord {
  task: string;
  files: readonly string[];
  shell: readonly TimeWindow[];
  active: TimeWindow;
  calls: number;
}

/** A path changed while several tasks ran and credited to none of them alone. */
export interface SharedChange {
  path: string;
  /** The tasks that ran shell commands meanwhile (or, when none did, the tasks that ran). */
  tasks: string[];
}

export interface Credit {
  /** The task's own changes: its file tools' writes still changed in the tree, and shell changes only it can have made. */
  own: string[];
  /** Changes this attempt saw that belong to several tasks: listed once, on the phase. */
  shared: SharedChange[];
  /** What counts for the evidence judgment: its own changes and the shared ones it took part in. */
  evidence: string[];
}

const overlaps = (a: TimeWindow, b: TimeWindow): boolean => a.start <= (b.end ?? Infinity) && b.start <= (a.end ?? Infinity);

/**
 * Splits `changed` (the attempt's snapshot diff over `window`) between `task` and the others, from
 * the phase's session records. When no session of the phase made a single tool call the hooks
 * reached (another plugin instance served the sessions), nothing is known: the diff stays the task's.
 */
export function creditChanges(task: string, changed: readonly string[], window: TimeWindow, sessions: readonly SessionRecord[]): Credit {
  if (sessions.every((s) => s.calls === 0)) return { own: [...changed], shared: [], evidence: [...changed] };
  const writers = new Map<string, Set<string>>();
  for (const s of sessions) for (const file of s.files) writers.set(file, (writers.get(file) ?? new Set()).add(s.task));
  const runners = new Set(sessions.filter((s) => s.shell.some((w) => overlaps(w, window))).map((s) => s.task));
  const active = new Set([task, ...sessions.filter((s) => overlaps(s.active, window)).map((s) => s.task)]);
  const own: string[] = [];
  const shared: SharedChange[] = [];
  for (const file of [...changed].sort()) {
    const wrote = writers.get(file);
    if (wrote?.has(task)) own.push(file);
    if (wrote) continue;
    // No file tool wrote it: whoever ran a shell meanwhile; when nobody did, whoever ran.
    const owners = runners.size > 0 ? runners : active;
    if (owners.size === 1 && owners.has(task)) own.push(file);
    // One other task's shell alone: that task's own change, credited by its own attempt.
    else if (owners.size > 1) shared.push({ path: file, tasks: [...owners].sort() });
  }
  const evidence = [...own, ...shared.filter((s) => s.tasks.includes(task)).map((s) => s.path)];
  return { own, shared, evidence };
}

/**
 * The phase's shared changes from every task's view, once per path (the union of the tasks each
 * view named), without the paths some task credited as its own.
 */
export function mergeShared(
  views: ReadonlyArray<readonly SharedChange[] | undefined>,
  owned: ReadonlyArray<readonly string[] | undefined>,
): SharedChange[] {
  const claimed = new Set(owned.flatMap((files) => files ?? []));
  const byPath = new Map<string, Set<string>>();
  for (const change of views.flatMap((v) => v ?? [])) {
    if (claimed.has(change.path)) continue;
    const tasks = byPath.get(change.path) ?? new Set();
    for (const t of change.tasks) tasks.add(t);
    byPath.set(change.path, tasks);
  }
  return [...byPath].sort(([a], [b]) => a.localeCompare(b)).map(([p, tasks]) => ({ path: p, tasks: [...tasks].sort() }));
}

/** "changed while tasks task-001, task-002 ran: a.txt, b.txt", one line per set of tasks. */
export function sharedLines(
  shared: readonly SharedChange[],
  list: (files: readonly string[]) => string = (files) => files.join(", "),
): string[] {
  const groups = new Map<string, string[]>();
  for (const change of shared) {
    const key = change.tasks.join(", ");
    groups.set(key, [...(groups.get(key) ?? []), change.path]);
  }
  return [...groups].map(([tasks, files]) => `changed while tasks ${tasks} ran: ${list(files)}`);
}
