/**
 * What the demo runs, and the scripted model's side of it. Each step is one otto slash command run
 * headless; `demoScript` is what the scripted model answers to the child sessions that step starts.
 */
import path from "node:path";
import { text, toolCall, type ScriptEntry } from "../test/support/index.ts";
import { DESIGN_V1, REQUIREMENTS, RESEARCH_DRAFT, RESEARCH_FINAL, TASKS_GOOD } from "../test/e2e/spec/fixtures.ts";
import { doc, envelope as specEnvelope, specModel, subjectOf } from "../test/e2e/spec/spec-model.ts";
import { execModel } from "../test/e2e/execute/exec-model.ts";
import { taskIdOf } from "../test/e2e/execute/kinds.ts";

export interface DemoStep {
  command: string;
  tool: string;
  args: string[];
  explain: string;
  /** Files of the scratch repo to print after the step. */
  show?: string[];
  /** Print the scratch repo's recent commits after the step. */
  commits?: boolean;
}

export const DEMO_FILES: Record<string, string> = {
  "README.md": "# tiny-api\n\nA tiny HTTP API used by the otto demo.\n",
  "package.json": `${JSON.stringify({ name: "tiny-api", version: "1.0.0", type: "module", scripts: { test: "node --test" }, dependencies: { express: "^4.19.0" } }, null, 2)}\n`,
  "src/server.js":
    'import express from "express";\n\nexport const app = express();\napp.get("/health", (_req, res) => res.json({ ok: true }));\n',
};

export const DEMO_STEPS: DemoStep[] = [
  { command: "otto-config", tool: "otto_config", args: ["validate"], explain: "otto checks its configuration files" },
  {
    command: "otto-config",
    tool: "otto_config",
    args: ["models"],
    explain: "each model role answers in a child session, from the model that was asked for",
  },
  ...specSteps("add-rate-limiting-api"),
];

/** A prompt to a reviewed, validated tasks.md: each step writes one spec document through the multi-model review. */
function specSteps(slug: string): DemoStep[] {
  const step = (args: string[], explain: string, file?: string): DemoStep => ({
    command: "otto-spec",
    tool: "otto_spec",
    args,
    explain,
    show: file ? [`.otto/specs/${slug}/${file}`] : undefined,
  });
  return [
    step(
      ["add", "Add rate limiting to the API"],
      "a new spec: the primary writes requirements.md, the secondary reviews it",
      "requirements.md",
    ),
    step(["requirements"], "re-running a stage refines the existing document instead of regenerating it"),
    step(["research"], "research.md: this time the secondary asks for changes and the primary refines", "research.md"),
    step(["design"], "design.md from requirements and research", "design.md"),
    step(["task", "generate"], "tasks.md, checked in code (ids, dependencies, parallel groups) before it is written", "tasks.md"),
    step(["questions"], "open questions the stages raised: auto-answered from evidence, or left for you"),
    {
      ...step(
        ["execute"],
        "tasks.md to committed code: phase by phase, tasks in parallel child sessions, review gate, hardening, one commit per phase, then docs",
      ),
      commits: true,
    },
  ];
}

/** The scripted model's side of the spec steps: answers chosen by which otto prompt it receives. */
const specAnswers = specModel((kind, req) => {
  switch (kind) {
    case "requirements":
      return doc(REQUIREMENTS);
    case "research":
      return doc(RESEARCH_DRAFT);
    case "design":
      return doc(DESIGN_V1);
    case "tasks":
      return doc(TASKS_GOOD);
    case "refine":
      return doc(RESEARCH_FINAL);
    case "review":
      return subjectOf(req) === "research.md" && !req.lastUser.includes("Counters in memory")
        ? specEnvelope({
            verdict: "revise",
            summary: "Misses a risk.",
            issues: [
              {
                severity: "major",
                location: "Risks",
                problem: "In-memory counters reset on restart.",
                fix: "Add it to Risks and Unknowns.",
              },
            ],
          })
        : undefined;
    case "question-resolve":
      return subjectOf(req).startsWith("Which header")
        ? specEnvelope({
            answerable: true,
            answer: "X-Api-Key, as the design assumes; nothing in the code reads another header.",
            confidence: "high",
            evidence: ["src/server.js: no header is read yet"],
          })
        : specEnvelope({
            answerable: false,
            answer: "A product decision: nothing in the code base settles it.",
            confidence: "low",
            evidence: [],
          });
    case "question-validate":
      return specEnvelope({ verdict: "accept", reason: "Checked src/server.js." });
    default:
      return undefined;
  }
});

const envelope = (value: unknown) => text(`BEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`);

/**
 * The scripted executor writes a small module per task with OpenCode's real `write` tool, then
 * checks it with a shell command in the tree, as every real session does: from then on otto's own
 * git there runs in the sandbox, with the user's home out of sight, and still commits each phase.
 */
const executeAnswers = (project: string): ScriptEntry =>
  execModel(project, (kind, req) => {
    if (kind !== "execute-task") return undefined;
    const task = taskIdOf(req.lastUser) ?? "task";
    const file = `src/${task}.js`;
    const done = req.messages.filter((m) => m.role === "tool").length;
    if (done === 0)
      return toolCall("write", {
        filePath: path.join(project, file),
        content: `// ${task}: implemented by the otto demo's scripted executor.\nexport const ${task.replace(/-/g, "_")} = true;\n`,
      });
    if (done === 1) return toolCall("bash", { command: `node --check ${file}`, description: `Check ${file} parses` });
    return text(`Created ${file} and checked it parses (node --check).`);
  });

/** The scripted model's answers for a step's child sessions (the slash command itself is scripted by the caller). */
export function demoScript(step: DemoStep, project: string): ScriptEntry[] {
  if (step.tool === "otto_config" && step.args[0] === "models") {
    return [
      {
        label: "model check",
        match: { lastUser: /connectivity check/ },
        reply: (req) => envelope({ role: /`([\w[\]]+)` model/.exec(req.lastUser)?.[1] ?? "primary", ok: true }),
        times: 2,
      },
    ];
  }
  if (step.tool === "otto_spec" && step.args[0] === "execute") return [executeAnswers(project)];
  if (step.tool === "otto_spec") return [specAnswers];
  return [];
}
