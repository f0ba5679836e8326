import { describe, expect, it } from "vitest";
import {
  designVars,
  renderStagePrompt,
  requirementsVars,
  researchVars,
  reviewContext,
  tasksVars,
  type SpecDocs,
} from "../../../../src/spec/index.ts";
import { ENV } from "./fake-spec.ts";

const ALL: SpecDocs = {
  requirements: "# Requirements: R",
  research: "# Research: R",
  design: "# Design: D",
  tasks: "# Tasks\n\n## Task 1: T",
  questions: "# Questions\n\n## Q1: A",
};
const summary = "## Codebase summary";

describe("prompt variables per stage", () => {
  it("first runs omit the artifact itself and every absent document", () => {
    const docs = { requirements: ALL.requirements };
    expect(requirementsVars({ docs: {}, request: "Add auth", codebaseSummary: summary })).toEqual({
      request: "Add auth",
      requirements_md: undefined,
      questions_md: undefined,
      existing_artifacts: undefined,
      codebase_summary: summary,
    });
    expect(researchVars({ docs })).toMatchObject({
      requirements_md: ALL.requirements,
      existing_research_md: undefined,
      design_md: undefined,
    });
    expect(designVars({ docs: { ...docs, research: ALL.research } })).toMatchObject({
      research_md: ALL.research,
      existing_design_md: undefined,
    });
    expect(tasksVars({ docs: { ...docs, research: "r", design: "d" } })).toMatchObject({
      existing_tasks_md: undefined,
      task_request: undefined,
    });
  });

  it("re-runs pass the existing artifact (refinement) and every other document plus questions.md", () => {
    const requirements = requirementsVars({ docs: ALL });
    expect(requirements).toMatchObject({ request: "", requirements_md: ALL.requirements, questions_md: ALL.questions });
    expect(requirements.existing_artifacts).toContain("## design.md\n\n# Design: D");
    expect(researchVars({ docs: ALL })).toEqual({
      requirements_md: ALL.requirements,
      existing_research_md: ALL.research,
      design_md: ALL.design,
      tasks_md: ALL.tasks,
      questions_md: ALL.questions,
      codebase_summary: undefined,
    });
    expect(designVars({ docs: ALL })).toMatchObject({ existing_design_md: ALL.design, tasks_md: ALL.tasks, questions_md: ALL.questions });
    expect(tasksVars({ docs: ALL })).toMatchObject({ existing_tasks_md: ALL.tasks, questions_md: ALL.questions });
    expect(tasksVars({ docs: ALL, taskRequest: "Add a cache" })).toMatchObject({
      existing_tasks_md: ALL.tasks,
      task_request: "Add a cache",
    });
  });

  it("treats an empty file as absent", () => {
    expect(designVars({ docs: { ...ALL, design: "  \n" } }).existing_design_md).toBeUndefined();
  });

  it("renders the refinement prompt with the existing document in it", () => {
    const first = renderStagePrompt("design", { docs: { requirements: "R", research: "S" } }, ENV);
    const again = renderStagePrompt("design", { docs: ALL, codebaseSummary: summary }, ENV);
    expect(first).toContain("This is the **first run**");
    expect(again).toContain("This is a **refinement run**");
    expect(again).toContain(`<existing_design_md>\n${ALL.design}\n</existing_design_md>`);
    expect(again).toContain(ALL.questions);
    expect(again).toContain(summary);
    expect(renderStagePrompt("tasks", { docs: ALL, taskRequest: "Add a cache" }, ENV)).toContain("This is an **add-task run**");
  });
});

describe("reviewContext", () => {
  it("holds the upstream documents of each stage", () => {
    expect(reviewContext("research", { docs: ALL }, "# Research")).toBe("## requirements.md\n\n# Requirements: R");
    expect(reviewContext("design", { docs: ALL, codebaseSummary: summary }, "# Design")).toBe(
      "## requirements.md\n\n# Requirements: R\n\n## research.md\n\n# Research: R\n\n## Codebase summary",
    );
    const tasks = reviewContext("tasks", { docs: ALL }, "# Tasks\n\n## Task 2: U");
    expect(tasks).toContain("## design.md");
    expect(tasks).toContain(
      "## Lines of tasks.md before this run that this version no longer has (otto puts completed tasks back exactly as they were)\n\n- ## Task 1: T",
    );
    expect(tasks).not.toContain("# Tasks\n");
  });

  it("gives requirements the request, and on a refinement only what the new version dropped", () => {
    expect(reviewContext("requirements", { docs: {}, request: "Add auth" }, "# R")).toBe("## The user's request\n\nAdd auth");
    const before = "# Requirements: R\n\n- keep sessions\n- log out everywhere";
    const refined = reviewContext(
      "requirements",
      { docs: { requirements: before }, request: "Drop the sessions" },
      "# Requirements: R\n\n- log out  everywhere\n- add MFA",
    );
    expect(refined).toBe(
      "## The user's instruction for this refinement\n\nDrop the sessions\n\n## Lines of requirements.md before this run that this version no longer has\n\n- - keep sessions",
    );
    expect(reviewContext("requirements", { docs: { requirements: before } }, before)).toContain(
      "None: every line of the earlier version is still in it.",
    );
    expect(reviewContext("requirements", { docs: {} }, "# R")).toBe("(no upstream documents)");
  });
});
