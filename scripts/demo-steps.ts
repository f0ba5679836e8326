/**
 * What the demo runs, and the scripted model's side of it. Each step is one otto slash command run
 * headless; `demoScript` is what the scripted model answers to the child sessions that step starts.
 */
import { text, type ScriptEntry } from "../test/support/index.ts";

export interface DemoStep {
  command: string;
  tool: string;
  args: string[];
  explain: string;
  /** Files of the scratch repo to print after the step. */
  show?: string[];
}

export const DEMO_FILES: Record<string, string> = {
  "README.md": "# tiny-api\n\nA tiny HTTP API used by the otto demo.\n",
  "package.json": `${JSON.stringify({ name: "tiny-api", version: "1.0.0", type: "module", scripts: { test: "node --test" }, dependencies: { express: "^4.19.0" } }, null, 2)}\n`,
  "src/server.js": 'import express from "express";\n\nexport const app = express();\napp.get("/health", (_req, res) => res.json({ ok: true }));\n',
};

export const DEMO_STEPS: DemoStep[] = [
  { command: "otto-config", tool: "otto_config", args: ["validate"], explain: "otto checks its configuration files" },
  { command: "otto-config", tool: "otto_config", args: ["models"], explain: "each model role answers in a child session, from the model that was asked for" },
];

const envelope = (value: unknown) => text(`BEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`);

/** The scripted model's answers for a step's child sessions (the slash command itself is scripted by the caller). */
export function demoScript(step: DemoStep): ScriptEntry[] {
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
  return [];
}
