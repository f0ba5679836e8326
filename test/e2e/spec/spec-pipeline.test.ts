import fs from "node:fs";
import path from "node:path";
import type { Event } from "@opencode-ai/sdk";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, useE2E, type RecordedRequest } from "../../support/index.ts";
import {
  DESIGN_V1,
  DESIGN_V2,
  REQUIREMENTS,
  RESEARCH_DRAFT,
  RESEARCH_FINAL,
  TASKS_CYCLE,
  TASKS_DONE,
  TASKS_DUPLICATE,
  TASKS_GOOD,
  TASKS_REGENERATED,
} from "../spec/fixtures.ts";
import { doc, envelope, kindOf, otto, requestsOf, specModel, subjectOf, type Kind } from "../spec/spec-model.ts";

const REVIEWER = "rigorous, independent reviewer";
const EXECUTOR = "You are an executor working for Otto";
const SLUG = "add-rate-limiting-api";
const SPEC = `.otto/specs/${SLUG}`;

/** Titles the otto_spec tool showed while running (its progress lines). */
function toolTitles(events: readonly Event[]): string[] {
  return events.flatMap((e) =>
    e.type === "message.part.updated" &&
    e.properties.part.type === "tool" &&
    e.properties.part.tool === "otto_spec" &&
    "title" in e.properties.part.state
      ? [e.properties.part.state.title ?? ""]
      : [],
  );
}

describe("/otto-spec through real OpenCode (serve + SDK)", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("takes a prompt to a reviewed, validated tasks.md; gates, inference, refinement, merge, questions, run", async () => {
    const ws = await e2e.workspace({
      files: {
        "package.json": JSON.stringify(
          { name: "api", dependencies: { express: "4.19.2" }, devDependencies: { vitest: "4.1.12" } },
          null,
          2,
        ),
        "src/server.js": "import express from 'express';\nconst app = express();\napp.listen(3000);\n",
      },
      ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" } },
    });
    const { client, events } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const model = e2e.model;
    // What the scripted model answers; tests below swap single answers in `answers`.
    const answers: Partial<Record<Kind, (req: RecordedRequest) => ReturnType<typeof doc> | undefined>> = {};
    model.script(
      { ...slashCommand("otto_spec")[0]!, times: Infinity },
      { ...slashCommand("otto_spec")[1]!, times: Infinity },
      specModel((kind, req) => answers[kind]?.(req)),
    );
    const spec = (file: string) => fs.readFileSync(path.join(ws.project, SPEC, file), "utf8");
    const since = () => model.requests.length;
    const turnsFrom = (start: number) => model.requests.slice(start).filter((r) => !r.isTitle);

    // --- No spec yet: inference has nothing to pick.
    const none = await otto(client, "design");
    expect(none.output).toContain("Error: No specs found in .otto/specs.");
    expect(none.output).toContain(
      'Next step: Run /otto-build plan "<prompt>" (requirements → research → design → tasks, unattended), or /otto-spec add "<prompt>"',
    );

    // --- add: requirements through the review; the open questions land in questions.md.
    answers.requirements = () => doc(REQUIREMENTS);
    let mark = since();
    const add = await otto(client, 'add "Add rate limiting to the API"');
    expect(add.output).toContain(`Created spec ${SLUG}`);
    expect(add.title).toMatch(new RegExp(`^otto-spec: Created spec ${SLUG} \\([\\d.]+k? tokens, cost unknown\\)$`));
    expect(add.output).toContain(`Written: ${SPEC}/requirements.md`);
    expect(add.output).toContain("Questions raised: Q1 (Limit per key), Q2 (Plans)");
    expect(add.output).toContain(`Next step: /otto-spec research --spec ${SLUG}`);
    expect(spec("requirements.md")).toBe(REQUIREMENTS);
    expect(spec("questions.md")).toContain("## Q1: Limit per key\n- **source**: requirements (");
    const [generate] = requestsOf(turnsFrom(mark), "requirements");
    expect(generate?.model).toBe("m1");
    expect(generate?.system).toContain(REVIEWER);
    expect(generate?.lastUser).toContain("Add rate limiting to the API");
    expect(generate?.lastUser).toContain("express"); // the codebase summary
    expect(requestsOf(turnsFrom(mark), "review").map((r) => `${r.model} ${subjectOf(r)}`)).toEqual(["m2 requirements.md"]);

    // --- Gate: design needs research.md, and says which command writes it (one spec: inferred).
    const gate = await otto(client, "design");
    expect(gate.output).toBe(
      `Error: Cannot run design — research.md has not been written yet.\nNext step: /otto-spec research --spec ${SLUG}`,
    );

    // --- research by unique prefix; the secondary asks for a revision, the primary refines.
    answers.research = () => doc(RESEARCH_DRAFT);
    answers.review = (req) =>
      subjectOf(req) === "research.md"
        ? envelope({
            verdict: "revise",
            summary: "Risks missing.",
            issues: [{ severity: "major", location: "Risks", problem: "No restart risk.", fix: "Add it." }],
          })
        : undefined;
    answers.refine = () => doc(RESEARCH_FINAL);
    mark = since();
    const research = await otto(client, "research --spec add-rate");
    expect(spec("research.md")).toBe(RESEARCH_FINAL);
    expect(research.output).toContain("| 3 | refine | mock/m1 | incorporated feedback");
    const refine = requestsOf(turnsFrom(mark), "refine")[0];
    expect(refine?.model).toBe("m1");
    expect(refine?.lastUser).toContain("No restart risk.");
    expect(refine?.lastUser).toContain("# Requirements: Rate limiting"); // the context
    expect(toolTitles(events.all)).toEqual(
      expect.arrayContaining([
        "pass 1/3: primary generating research.md",
        "pass 2/3: secondary reviewing (clean session)",
        "pass 3/3: primary incorporating feedback (clean session)",
      ]),
    );
    delete answers.review;

    // --- design, then design again: the re-run refines the existing design.md.
    answers.design = (req) => doc(req.lastUser.includes("<existing_design_md>") ? DESIGN_V2 : DESIGN_V1);
    await otto(client, "design");
    expect(spec("design.md")).toBe(DESIGN_V1);
    mark = since();
    const again = await otto(client, "design");
    const rerun = requestsOf(turnsFrom(mark), "design")[0];
    expect(rerun?.lastUser).toContain(`<existing_design_md>\n${DESIGN_V1.trim()}\n</existing_design_md>`);
    expect(rerun?.lastUser).toContain(RESEARCH_FINAL.trim());
    expect(rerun?.lastUser).toContain("## Q3: Header"); // questions.md, with the question design v1 raised
    expect(spec("design.md")).toBe(DESIGN_V2);
    expect(again.output).toContain(`Written: ${SPEC}/design.md (refined from the existing file)`);

    // --- task generate: a cycle, then a duplicate id, each sent back to the same session.
    let attempt = 0;
    answers.tasks = () => doc([TASKS_CYCLE, TASKS_DUPLICATE, TASKS_GOOD][attempt++] ?? TASKS_GOOD);
    answers["document-retry"] = answers.tasks;
    mark = since();
    const tasks = await otto(client, "task generate");
    expect(spec("tasks.md")).toBe(TASKS_GOOD);
    expect(tasks.output).toContain("Generated 3 tasks in 2 parallel groups.");
    expect(tasks.output).toContain("generated tasks.md (valid after 3 answers)");
    const retries = requestsOf(turnsFrom(mark), "document-retry");
    expect(retries).toHaveLength(2);
    expect(retries[0]?.lastUser).toContain("Dependency cycle: task-001 → task-003 → task-001");
    expect(retries[1]?.lastUser).toContain("Id 'task-002' is used by Task 2 and Task 3");
    for (const retry of retries) {
      // Same session: the first tasks prompt and the rejected answers are in its history.
      expect(JSON.stringify(retry.messages)).toContain("You are the technical lead planning");
      expect(retry.model).toBe("m1");
    }
    expect(requestsOf(turnsFrom(mark), "tasks")).toHaveLength(1);

    // --- Re-run after two tasks were completed: the model drops one and rewrites the other.
    fs.writeFileSync(path.join(ws.project, SPEC, "tasks.md"), TASKS_DONE);
    answers.tasks = (req) => {
      expect(req.lastUser).toContain("<existing_tasks_md>");
      return doc(TASKS_REGENERATED);
    };
    const regen = await otto(client, "task generate");
    const list = await otto(client, "task list");
    expect(list.output).toMatch(/\| 1 \| task-001 \| completed \| 1 \| - \| Create the token bucket store \|/);
    expect(list.output).toMatch(/\| 2 \| task-002 \| completed \| 1 \| - \| Write the 429 response helper \|/);
    expect(list.output).toContain("| task-004 | pending | 3 | task-003 | Document the limits |");
    expect(list.output).toContain("Progress: 2/4 completed | 2 pending");
    expect(regen.output).toContain("Restored: task-002 is completed; the generated version changed its title, status");
    expect(regen.output).toContain("Restored: task-001 (completed) was missing from the generated tasks");

    // --- questions: Q1 answered from evidence and accepted; Q2 declined; Q3 disagreed.
    answers["question-resolve"] = (req) => {
      const q = subjectOf(req);
      if (q.startsWith("What is the default limit"))
        return envelope({ answerable: true, answer: "100 requests per minute.", confidence: "high", evidence: ["config/limits.json:2"] });
      if (q.startsWith("Which customer plans"))
        return envelope({ answerable: false, answer: "A pricing decision.", confidence: "low", evidence: [] });
      return envelope({ answerable: true, answer: "X-Api-Key", confidence: "medium", evidence: ["src/server.js:1"] });
    };
    answers["question-validate"] = (req) =>
      req.lastUser.includes("<proposed_answer>\n100 requests")
        ? envelope({ verdict: "accept", reason: "Verified." })
        : envelope({ verdict: "reject", reason: "src/server.js reads no header at all." });
    mark = since();
    const questions = await otto(client, "questions");
    expect(questions.output).toContain("1 auto-answered, 2 left for you");
    expect(questions.output).toContain(`Answer with: \`/otto-spec questions answer Q2 "<your answer>" --spec ${SLUG}\``);
    expect(questions.output).toContain("**Q3** Header: needs you: the secondary model did not accept the proposed answer");
    expect(spec("questions.md")).toContain(
      "- **status**: auto-answered\n- **question**: What is the default limit per API key?\n- **answer**: 100 requests per minute.",
    );
    expect(spec("questions.md")).toContain("- **validated_by**: secondary");
    expect(requestsOf(turnsFrom(mark), "question-validate").map((r) => r.model)).toEqual(["m2", "m2"]);

    const answered = await otto(client, 'questions answer Q2 "Only the paid plans."');
    expect(answered.output).toContain("Open questions left: Q3");
    expect(spec("questions.md")).toContain("## Q2: Plans\n- **source**: requirements (");
    expect(spec("questions.md")).toMatch(/## Q2: Plans\n[^#]*- \*\*status\*\*: answered\n[^#]*- \*\*answer\*\*: Only the paid plans\./);

    // --- run: ad hoc, executor agent, every spec file as context, the session is kept.
    answers["spec-run"] = () => doc("Low risk.");
    const run = await otto(client, 'run "What are the security implications?"');
    const runRequest = requestsOf(model.turns(), "spec-run")[0];
    expect(runRequest?.system).toContain(EXECUTOR);
    expect(runRequest?.lastUser).toContain(`## ${SPEC}/tasks.md`);
    expect(runRequest?.lastUser).toContain("What are the security implications?");
    const kept = /Session (ses_\w+) is kept/.exec(run.output)?.[1] ?? "";
    const child = (await client.session.get({ path: { id: kept }, throwOnError: true })).data;
    expect(child.parentID).toBe(run.sessionID);

    // --- Path traversal, then inference with two specs: ambiguity lists the candidates.
    expect((await otto(client, "design --spec ../x")).output).toContain("Error: Invalid spec slug '../x'");
    fs.mkdirSync(path.join(ws.project, ".otto/specs/add-auth"), { recursive: true });
    fs.writeFileSync(path.join(ws.project, ".otto/specs/add-auth/requirements.md"), "# Requirements: Auth\n");
    const ambiguous = await otto(client, "task list");
    expect(ambiguous.output).toContain("Error: Multiple specs found, specify one with --spec:");
    expect(ambiguous.output).toMatch(/add-auth\s+\(1 artifact\)/);
    expect(ambiguous.output).toMatch(new RegExp(`${SLUG}\\s+\\(5 artifacts\\)`));
    expect((await otto(client, "task list --spec add")).output).toContain("Error: 'add' matches 2 specs");
    expect((await otto(client, "task list --spec add-r")).output).toContain("Progress: 2/4 completed");
    const listed = await otto(client, "list");
    expect(listed.output).toContain(`| ${SLUG} | yes | yes | yes | 2/4 completed | 1 | /otto-spec task list --spec ${SLUG} |`);

    // Every model call was an otto prompt or the slash command; every stage left a history record.
    expect(model.unmatched()).toEqual([]);
    const kinds = new Set(
      model
        .turns()
        .map((r) => kindOf(r))
        .filter(Boolean),
    );
    expect([...kinds].sort()).toEqual([
      "design",
      "document-retry",
      "question-resolve",
      "question-validate",
      "refine",
      "requirements",
      "research",
      "review",
      "spec-run",
      "tasks",
    ]);
    for (const r of model.turns().filter((t) => kindOf(t) && kindOf(t) !== "spec-run")) expect(r.system).toContain(REVIEWER);
    const history = fs.readdirSync(path.join(ws.project, SPEC, "history"));
    expect(history.map((f) => f.replace(/^[\dTZ-]+?-(?=[a-z])/, "")).sort()).toEqual(
      ["add.md", "design.md", "design.md", "questions.md", "research.md", "run.md", "task-generate.md", "task-generate.md"].sort(),
    );
  });
});
