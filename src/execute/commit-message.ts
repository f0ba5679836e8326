/*
 * Commit messages of the execution engine (pure). The last paragraph holds git trailers that
 * record what a commit is, so a re-run reads the history to know what is already committed:
 *   Otto-Phase: <slug>/<group>   a phase
 *   Otto-Task: <slug>/<task id>  one task run with `/otto-spec task run`
 *   Otto-Docs: <slug>            the documentation alignment after the last phase
 *   Otto-Verify: passed | failed | none
 */

import { cut } from "../core/index.ts";

export type OttoTrailer =
  { kind: "phase"; slug: string; group: number } | { kind: "task"; slug: string; id: string } | { kind: "docs"; slug: string };

export type VerifyState = "passed" | "failed" | "none";

const TRAILER = /^Otto-(Phase|Task|Docs):\s*([a-z0-9][a-z0-9-]*)(?:\/(\S+))?\s*$/;

/** The otto trailers of a commit message. */
export function parseTrailers(message: string): OttoTrailer[] {
  const out: OttoTrailer[] = [];
  for (const line of message.split(/\r?\n/)) {
    const match = TRAILER.exec(line.trim());
    if (!match) continue;
    const [, kind, slug = "", rest] = match;
    if (kind === "Phase" && rest && /^\d+$/.test(rest)) out.push({ kind: "phase", slug, group: Number(rest) });
    else if (kind === "Task" && rest) out.push({ kind: "task", slug, id: rest });
    else if (kind === "Docs" && rest === undefined) out.push({ kind: "docs", slug });
  }
  return out;
}

export function trailerLine(trailer: OttoTrailer): string {
  switch (trailer.kind) {
    case "phase":
      return `Otto-Phase: ${trailer.slug}/${trailer.group}`;
    case "task":
      return `Otto-Task: ${trailer.slug}/${trailer.id}`;
    case "docs":
      return `Otto-Docs: ${trailer.slug}`;
  }
}

export interface TaskLine {
  id: string;
  title: string;
  status: string;
  /** The executor's summary (completed) or the failure reason. */
  note?: string;
}

export interface PhaseMessage {
  slug: string;
  trailer: OttoTrailer;
  /** Subject after `otto(<slug>): `, e.g. "phase 2: task-003, task-004". */
  subject: string;
  tasks: readonly TaskLine[];
  /** "Review gate: …", "Verification: passed (npm test)", … */
  steps: readonly string[];
  verify: VerifyState;
}

/** Longest summary of one task kept in a commit message; the full text is in history/. */
const NOTE_MAX = 600;
/** Well under the kernel's 128 KiB limit for one argv string (git commit -m). */
const MESSAGE_MAX = 60_000;

/** The commit message; its body is also the phase's summary that later phases receive. */
export function renderCommitMessage(m: PhaseMessage): string {
  const body: string[] = [`otto(${m.slug}): ${m.subject}`.slice(0, 200), ""];
  if (m.tasks.length > 0) {
    body.push("Tasks:");
    for (const t of m.tasks) body.push(`- ${t.id} ${t.status}: ${t.title}`);
    const notes = m.tasks.filter((t) => t.note?.trim());
    for (const t of notes) body.push("", `${t.id}: ${cut(t.note?.trim() ?? "", NOTE_MAX)}`);
    body.push("");
  }
  body.push(...m.steps, "");
  const trailers = [trailerLine(m.trailer), `Otto-Verify: ${m.verify}`];
  const text = body.join("\n").replace(/\n{3,}/g, "\n\n");
  return `${cut(text.trimEnd(), MESSAGE_MAX)}\n\n${trailers.join("\n")}\n`;
}

/** The message without its trailers: what a later phase is told about this one. */
export function summaryOf(message: string): string {
  return message
    .split(/\r?\n/)
    .filter((l) => !/^Otto-[A-Za-z]+:/.test(l.trim()))
    .join("\n")
    .trim();
}
