import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, useE2E } from "../../support/index.ts";
import { DESIGN_V1, REQUIREMENTS, RESEARCH_FINAL, TASKS_CYCLE } from "../spec/fixtures.ts";
import { doc, kindOf, requestsOf, specModel } from "../spec/spec-model.ts";

describe("/otto-spec headless (opencode run --command)", () => {
  const e2e = useE2E();

  it("add works headless; unset model roles fall back to the session's model, and the output says so", async () => {
    const ws = await e2e.workspace();
    e2e.model.script(
      ...slashCommand("otto_spec"),
      specModel((kind) => (kind === "requirements" ? doc(REQUIREMENTS) : undefined)),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "add", "Add rate limiting to the API"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Created spec add-rate-limiting-api");
    expect(run.stdout).toContain("Note: models.primary is not set; using mock/m1 (the session's model)");
    expect(run.stdout).toContain("Note: models.secondary is not set; using mock/m1 (the session's model)");
    expect(run.stdout).toContain("Note: the review is by the same model that wrote the work (mock/m1), so it is no second opinion");
    expect(run.stdout).toContain("Next step: /otto-spec research --spec add-rate-limiting-api");
    expect(ws.readFile(".otto/specs/add-rate-limiting-api/requirements.md")).toBe(REQUIREMENTS);
    const otto = e2e.model.turns().filter((r) => kindOf(r));
    expect(otto.map((r) => `${kindOf(r)} ${r.model}`)).toEqual(["requirements m1", "review m1"]);
    // The command's own turns ran as its agent (otto.spec): otto_spec is the only tool they carry.
    const command = e2e.model.turns().filter((r) => r.toolNames.includes("otto_spec"));
    expect(command.map((r) => r.toolNames)).toEqual([["otto_spec"], ["otto_spec"]]);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a tasks.md that stays invalid after two repairs is never written, and the error says what to do", async () => {
    const ws = await e2e.workspace({ ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" } } });
    ws.writeFiles({
      ".otto/specs/rate-limiting/requirements.md": REQUIREMENTS,
      ".otto/specs/rate-limiting/research.md": RESEARCH_FINAL,
      ".otto/specs/rate-limiting/design.md": DESIGN_V1,
    });
    e2e.model.script(
      ...slashCommand("otto_spec"),
      specModel((kind) => (kind === "tasks" || kind === "document-retry" ? doc(TASKS_CYCLE) : undefined)),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "task", "generate"]);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stdout).toContain("wrote an invalid tasks.md 3 times; nothing was written");
    expect(run.stdout).toContain("Dependency cycle: task-001 → task-003 → task-001");
    expect(run.stdout).toContain("Next step: Run the command again; if it keeps failing, use a stronger primary model");
    expect(fs.existsSync(path.join(ws.project, ".otto/specs/rate-limiting/tasks.md"))).toBe(false);
    expect(requestsOf(e2e.model.turns(), "document-retry")).toHaveLength(2);
    expect(requestsOf(e2e.model.turns(), "review")).toEqual([]);
    const history = fs.readdirSync(path.join(ws.project, ".otto/specs/rate-limiting/history"));
    expect(history).toHaveLength(1);
    expect(fs.readFileSync(path.join(ws.project, ".otto/specs/rate-limiting/history", history[0] ?? ""), "utf8")).toContain(
      "## Dialog: generate (mock/m1",
    );
  });
});
