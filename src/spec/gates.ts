import { OttoError } from "../core/errors.ts";
import type { Artifact } from "./layout.ts";

/** Pipeline stages; `run` (ad hoc) and `questions` are never gated. */
export type Stage = "requirements" | "research" | "design" | "task-generate" | "task-add" | "task-list" | "execute" | "run" | "questions";

/** The gate table: the artifacts each stage needs, in pipeline order. */
export const STAGE_REQUIRES: Readonly<Record<Stage, readonly Artifact[]>> = {
  requirements: ["requirements"],
  research: ["requirements"],
  design: ["requirements", "research"],
  "task-generate": ["requirements", "research", "design"],
  // Adding a task splices it into an existing tasks.md, with the documents task generate reads.
  "task-add": ["requirements", "research", "design", "tasks"],
  "task-list": ["tasks"],
  execute: ["requirements", "research", "design", "tasks"],
  run: [],
  questions: [],
};

const STAGE_NAMES: Readonly<Record<Stage, string>> = {
  requirements: "requirements",
  research: "research",
  design: "design",
  "task-generate": "task generate",
  "task-add": "task add",
  "task-list": "task list",
  execute: "execute",
  run: "run",
  questions: "questions",
};

/** The command that writes each gated artifact. */
function commandFor(artifact: Artifact, slug: string): string {
  switch (artifact) {
    case "requirements":
      // Only `spec add` creates requirements.md (or the user writes it by hand).
      return `/otto-spec add "<prompt>" (or write .otto/specs/${slug}/requirements.md)`;
    case "tasks":
      return `/otto-spec task generate --spec ${slug}`;
    default:
      return `/otto-spec ${artifact} --spec ${slug}`;
  }
}

/**
 * Artifact gates (file existence only). Throws `gate_blocked` naming the first missing file
 * in pipeline order, with the command that creates it as the fix.
 */
export function checkGate(stage: Stage, present: ReadonlySet<Artifact>, slug: string): void {
  const absent = STAGE_REQUIRES[stage].filter((artifact) => !present.has(artifact));
  const missing = absent[0];
  if (missing === undefined) return;
  if (absent.length === 1)
    throw new OttoError(
      "gate_blocked",
      `Cannot run ${STAGE_NAMES[stage]} — ${missing}.md has not been written yet.`,
      commandFor(missing, slug),
    );
  // Several stages to go: name them all at once, not one gate per attempt.
  const rest = absent.slice(1).map((a) => (a === "tasks" ? "task generate" : a));
  throw new OttoError(
    "gate_blocked",
    `Cannot run ${STAGE_NAMES[stage]} — ${absent.map((a) => `${a}.md`).join(", ")} have not been written yet.`,
    `${commandFor(missing, slug)}, then ${rest.join(", then ")} (for a new prompt, /otto-build plan "<prompt>" runs the whole chain unattended).`,
  );
}
