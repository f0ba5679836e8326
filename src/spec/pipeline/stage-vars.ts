import type { PromptVars } from "../../prompts/index.ts";
import { removedLines } from "../../review/index.ts";
import type { Artifact } from "../layout.ts";
import type { SpecDocs } from "./spec-files.ts";

/**
 * What each spec prompt is given (pure). Stages are idempotent, and this is where:
 * when an artifact exists, it is passed back (`existing_design_md` …) so the prompt switches to
 * refinement, together with every other spec document and questions.md.
 */

export type DocStage = "requirements" | "research" | "design";
export type ArtifactStage = DocStage | "tasks";

export interface StageInput {
  docs: SpecDocs;
  codebaseSummary?: string;
  /** requirements: the user's words (add) or an extra instruction (refinement). */
  request?: string;
  /** tasks: the work to splice in (task add). */
  taskRequest?: string;
}

/** Documents without surrounding blank lines; empty ones count as absent, so `{{#if}}` sections stay out. */
export const doc = (text: string | undefined): string | undefined => (text?.trim() ? text.trim() : undefined);
const required = (text: string | undefined): string => doc(text) ?? "";

export function requirementsVars(input: StageInput): PromptVars<"requirements"> {
  const { docs } = input;
  return {
    request: input.request ?? "",
    requirements_md: doc(docs.requirements),
    questions_md: doc(docs.questions),
    existing_artifacts: doc(joinDocs(docs, ["research", "design", "tasks"])),
    codebase_summary: doc(input.codebaseSummary),
  };
}

export function researchVars(input: StageInput): PromptVars<"research"> {
  const { docs } = input;
  return {
    requirements_md: required(docs.requirements),
    existing_research_md: doc(docs.research),
    design_md: doc(docs.design),
    tasks_md: doc(docs.tasks),
    questions_md: doc(docs.questions),
    codebase_summary: doc(input.codebaseSummary),
  };
}

export function designVars(input: StageInput): PromptVars<"design"> {
  const { docs } = input;
  return {
    requirements_md: required(docs.requirements),
    research_md: required(docs.research),
    existing_design_md: doc(docs.design),
    tasks_md: doc(docs.tasks),
    questions_md: doc(docs.questions),
    codebase_summary: doc(input.codebaseSummary),
  };
}

export function tasksVars(input: StageInput): PromptVars<"tasks"> {
  const { docs } = input;
  return {
    requirements_md: required(docs.requirements),
    research_md: required(docs.research),
    design_md: required(docs.design),
    existing_tasks_md: doc(docs.tasks),
    task_request: doc(input.taskRequest),
    questions_md: doc(docs.questions),
    codebase_summary: doc(input.codebaseSummary),
  };
}

/** `## research.md` + text, for each present document, in pipeline order. */
export function joinDocs(docs: SpecDocs, which: readonly Artifact[]): string {
  return which
    .filter((a) => doc(docs[a]) !== undefined)
    .map((a) => `## ${a}.md\n\n${required(docs[a])}`)
    .join("\n\n");
}

/**
 * What a refinement dropped from the earlier version, for the reviewer and the refiner: the lines
 * the artifact no longer has, not the whole earlier version beside the whole new one.
 */
function dropped(name: string, before: string, artifact: string, note = ""): string {
  const lines = removedLines(before, artifact);
  const heading = `## Lines of ${name} before this run that this version no longer has${note}`;
  return `${heading}\n\n${lines.length ? lines.map((l) => `- ${l}`).join("\n") : "None: every line of the earlier version is still in it."}`;
}

/**
 * The upstream documents an artifact must be faithful to: the `context` of review and refine, for
 * the `artifact` under review (a refinement run is judged by what it dropped).
 */
export function reviewContext(stage: ArtifactStage, input: StageInput, artifact: string): string {
  const { docs } = input;
  const parts: string[] = [];
  if (stage === "requirements") {
    const label = doc(docs.requirements) ? "The user's instruction for this refinement" : "The user's request";
    if (input.request?.trim()) parts.push(`## ${label}\n\n${input.request.trim()}`);
    // A refinement has no other upstream: what it dropped is what must not have been lost.
    if (doc(docs.requirements)) parts.push(dropped("requirements.md", docs.requirements ?? "", artifact));
  } else {
    const upstream: Record<ArtifactStage, Artifact[]> = {
      requirements: [],
      research: ["requirements"],
      design: ["requirements", "research"],
      tasks: ["requirements", "research", "design"],
    };
    parts.push(joinDocs(docs, upstream[stage]));
    if (stage === "tasks" && doc(docs.tasks)) {
      parts.push(dropped("tasks.md", docs.tasks ?? "", artifact, " (otto puts completed tasks back exactly as they were)"));
    }
  }
  if (doc(input.codebaseSummary)) parts.push((input.codebaseSummary ?? "").trim());
  return parts.filter((p) => p.trim()).join("\n\n") || "(no upstream documents)";
}
