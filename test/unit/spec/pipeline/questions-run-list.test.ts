import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../../src/core/index.ts";
import { answerOne, listVerb, parseQuestions, resolveQuestions, runAdhoc, taskListVerb } from "../../../../src/spec/index.ts";
import { envelope, fakeSpec, REQUIREMENTS, tasksMd } from "./fake-spec.ts";

let env: ReturnType<typeof fakeSpec> | undefined;
afterEach(() => env?.cleanup());

const question = (n: number, title: string, text: string, status = "unanswered") =>
  `## Q${n}: ${title}\n- **source**: design (2026-02-05)\n- **status**: ${status}\n- **question**: ${text}`;
const QUESTIONS = [
  "# Questions",
  question(1, "Logger", "Which logger do we use?"),
  question(2, "Plans", "Which plans get limits?"),
  question(3, "Header", "Which header carries the key?"),
  question(4, "Done", "Already settled?", "answered"),
].join("\n\n");

describe("questions", () => {
  it("auto-answers what the secondary accepts; declined and disagreed ones are left for the user", async () => {
    env = fakeSpec((call) => {
      if (call.kind === "question-resolve") {
        if (call.text.includes("<question>\nWhich logger"))
          return { text: envelope({ answerable: true, answer: "pino", confidence: "high", evidence: ["src/log.ts:1"] }) };
        if (call.text.includes("<question>\nWhich plans"))
          return { text: envelope({ answerable: false, answer: "A product decision.", confidence: "low", evidence: [] }) };
        return { text: envelope({ answerable: true, answer: "X-Api-Key", confidence: "medium", evidence: [] }) };
      }
      if (call.kind === "question-validate") {
        const ok = call.text.includes("<proposed_answer>\npino");
        return { text: envelope({ verdict: ok ? "accept" : "reject", reason: ok ? "verified" : "two conventions exist" }) };
      }
      return undefined;
    });
    env.write("rl", { "requirements.md": REQUIREMENTS, "questions.md": QUESTIONS });
    const result = await resolveQuestions(env.deps);
    expect(env.calls.map((c) => `${c.kind} ${c.body.model.modelID}`).sort()).toEqual([
      "question-resolve primary-1",
      "question-resolve primary-1",
      "question-resolve primary-1",
      "question-validate secondary-1",
      "question-validate secondary-1",
    ]);
    const resolve = env.calls.find((c) => c.text.includes("<question>\nWhich logger"));
    expect(resolve?.text).toContain("source: design (2026-02-05)");
    expect(resolve?.text).toContain("# Requirements: Rate limiting");
    const list = parseQuestions(env.read("rl", "questions.md")).questions.questions;
    expect(list.map((q) => `Q${q.number} ${q.status} ${q.validated_by ?? "-"}`)).toEqual([
      "Q1 auto-answered secondary",
      "Q2 unanswered -",
      "Q3 unanswered -",
      "Q4 answered -",
    ]);
    expect(list[0]?.answer).toBe("pino\n\nEvidence:\n- src/log.ts:1");
    expect(result.output).toContain("1 auto-answered, 2 left for you");
    expect(result.output).toContain("**Q3** Header: needs you: the secondary model did not accept the proposed answer");
    expect(result.output).toContain('`/otto-spec questions answer Q2 "<your answer>" --spec rl`');
    expect(env.history("rl")[0]).toMatch(/questions\.md$/);
  });

  it("a failing model call leaves the question open and says why", async () => {
    env = fakeSpec((call) => (call.kind === "question-resolve" ? { httpError: { message: "boom" } } : undefined));
    env.write("rl", { "requirements.md": REQUIREMENTS, "questions.md": `# Questions\n\n${question(1, "Logger", "Which?")}` });
    const result = await resolveQuestions(env.deps, "r");
    expect(result.output).toContain("needs you: auto-resolution failed");
    expect(env.read("rl", "questions.md")).toContain("- **status**: unanswered");
  });

  it("with nothing open, says so without calling a model", async () => {
    env = fakeSpec(() => undefined);
    env.write("rl", { "requirements.md": REQUIREMENTS });
    expect((await resolveQuestions(env.deps)).output).toContain("This spec has no questions.md yet.");
    expect(env.calls).toEqual([]);
  });

  it("answer: records the user's answer as answered and points to the next open one", async () => {
    env = fakeSpec(() => undefined);
    env.write("rl", { "requirements.md": REQUIREMENTS, "questions.md": QUESTIONS });
    const result = await answerOne(env.deps, undefined, "q2", "Only the paid plans.");
    expect(env.read("rl", "questions.md")).toContain(
      "## Q2: Plans\n- **source**: design (2026-02-05)\n- **status**: answered\n- **question**: Which plans get limits?\n- **answer**: Only the paid plans.",
    );
    expect(result.output).toContain("Open questions left: Q1, Q3");
    expect(result.output).toContain('Next step: /otto-spec questions answer Q1 "<your answer>" --spec rl');
    try {
      await answerOne(env.deps, undefined, "Q9", "x");
      expect.unreachable();
    } catch (error) {
      expect(isOttoError(error) && error.code).toBe("question_not_found");
    }
  });
});

describe("run", () => {
  it("sends every spec file to the primary with the executor agent and keeps the session", async () => {
    env = fakeSpec((call) => (call.kind === "spec-run" ? { text: "The design is secure enough." } : undefined));
    env.write("rl", { "requirements.md": REQUIREMENTS, "design.md": "# Design\n" });
    const result = await runAdhoc(env.deps, undefined, "What are the security implications?");
    const [call] = env.calls;
    expect(call?.body.agent).toBe("otto-executor");
    expect(call?.text).toContain("## .otto/specs/rl/requirements.md");
    expect(call?.text).toContain("## .otto/specs/rl/design.md");
    expect(call?.text).toContain("What are the security implications?");
    expect(env.fake.deleted).toEqual([]);
    expect(result.output).toContain("The design is secure enough.");
    expect(result.output).toContain(`Session ${call?.sessionID} is kept`);
  });
});

describe("list and task list", () => {
  it("list: artifacts, progress, open questions and the next step of every spec", async () => {
    env = fakeSpec(() => undefined);
    expect(listVerb(env.repoRoot).output).toContain('Next step: /otto-spec add "<what you want to build>"');
    env.write("add-auth", {
      "requirements.md": "r",
      "research.md": "r",
      "design.md": "d",
      "tasks.md": tasksMd([
        ["task-001", "completed", 1, [], "A"],
        ["task-002", "pending", 2, [], "B"],
      ]),
    });
    env.write("rate-limiting", { "requirements.md": "r", "questions.md": QUESTIONS });
    const { output } = listVerb(env.repoRoot);
    expect(output).toContain("| add-auth | yes | yes | yes | 1/2 completed | 0 | /otto-spec task list --spec add-auth |");
    expect(output).toContain("| rate-limiting | yes | - | - | - | 3 | /otto-spec research --spec rate-limiting |");
  });

  it("task list: table, progress summary, problems, and --spec inference errors", async () => {
    env = fakeSpec(() => undefined);
    expect(() => taskListVerb(env!.repoRoot)).toThrow(/No specs found/);
    env.write("add-auth", {
      "requirements.md": "r",
      "tasks.md": tasksMd([
        ["task-001", "completed", 1, [], "A"],
        ["task-002", "running", 2, ["task-001"], "B"],
        ["task-003", "pending", 2, ["task-009"], "C"],
      ]),
    });
    const { output } = taskListVerb(env.repoRoot);
    expect(output).toContain("| 2 | task-002 | running | 2 | task-001 | B |");
    expect(output).toContain("Progress: 1/3 completed | 1 running | 1 pending");
    expect(output).toContain("Parallel groups: group 1: 1/1 completed · group 2: 0/2 completed");
    expect(output).toContain("depends on 'task-009', which is not the id of any task");
    env.write("add-rate-limit", { "requirements.md": "r" });
    expect(() => taskListVerb(env!.repoRoot)).toThrow(/Multiple specs found/);
    expect(taskListVerb(env.repoRoot, "add-au").title).toContain("add-auth");
    expect(() => taskListVerb(env!.repoRoot, "add")).toThrow(/'add' matches 2 specs/);
    expect(() => taskListVerb(env!.repoRoot, "add-rate")).toThrow(/Cannot run task list — tasks.md has not been written yet/);
  });
});
