import { describe, expect, it } from "vitest";
import { slashCommand, useE2E } from "../../support/index.ts";
import { DESIGN_V1, REQUIREMENTS, RESEARCH_FINAL, TASKS_GOOD } from "../spec/fixtures.ts";
import { doc, kindOf, specModel } from "../spec/spec-model.ts";

describe("/otto-build plan, headless", () => {
  const e2e = useE2E();

  it("runs add → requirements → research → design → task generate unattended and stops for review", async () => {
    const ws = await e2e.workspace({ ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" } } });
    const docs = { requirements: REQUIREMENTS, research: RESEARCH_FINAL, design: DESIGN_V1, tasks: TASKS_GOOD } as const;
    e2e.model.script(
      ...slashCommand("otto_build"),
      specModel((kind) => (kind in docs ? doc(docs[kind as keyof typeof docs]) : undefined)),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "plan", "Add rate limiting to the API"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    const slug = "add-rate-limiting-api";
    expect(run.stdout).toContain(`## otto build plan: ${slug}`);
    expect(run.stdout).toContain(
      `Next step: /otto-spec execute --spec ${slug} --pr (the tasks in phases, then the PR), or /otto-build --spec ${slug} --pr`,
    );
    for (const [name, text] of Object.entries(docs)) expect(ws.readFile(`.otto/specs/${slug}/${name}.md`)).toBe(text);
    const stages = e2e.model.turns().flatMap((r) => {
      const kind = kindOf(r);
      return kind && kind !== "review" ? [kind] : [];
    });
    expect(stages).toEqual(["requirements", "requirements", "research", "design", "tasks"]);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
