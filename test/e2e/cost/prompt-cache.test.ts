import { describe, expect, it } from "vitest";
import { slashCommand, text, useE2E, type RecordedRequest, type Workspace } from "../../support/index.ts";
import { templateHead } from "../../../src/prompts/stable-head.ts";
import { compilePrompt } from "../../../src/prompts/load-prompt.ts";
import { execModel } from "../execute/exec-model.ts";
import { execKindOf, specFiles, tasksMd } from "../execute/kinds.ts";

/**
 * Otto's stable text where a provider's prompt cache reads it (src/session/stable-system.ts), seen
 * in the requests OpenCode sends. The models are named like Claude's, as the token bench's are, so
 * OpenCode marks the requests for caching as it marks Claude's (its applyCaching: the first two
 * system messages and the last two others get `cache_control`).
 */
const MODELS = ["claude-m1", "claude-m2"];

type Message = Record<string, unknown>;

const messagesOf = (req: RecordedRequest): Message[] => (Array.isArray(req.body.messages) ? (req.body.messages as Message[]) : []);

/** A message's text, whether OpenCode sent its content as a string or as parts. */
function contentText(message: Message): string {
  const { content } = message;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? (content as Message[]).map((p) => (typeof p.text === "string" ? p.text : "")).join("") : "";
}

/** Whether the message (or its last part) carries OpenCode's cache marker. */
function marked(message: Message): boolean {
  if (message.cache_control !== undefined) return true;
  const parts = Array.isArray(message.content) ? (message.content as Message[]) : [];
  return parts.at(-1)?.cache_control !== undefined;
}

const systems = (req: RecordedRequest) => messagesOf(req).filter((m) => m.role === "system");

/** The body as a stable string: the workspace's own paths made one placeholder. */
function normalized(req: RecordedRequest, ws: Workspace): string {
  return JSON.stringify(req.body).split(ws.root).join("<root>");
}

describe("the prompt cache: otto's stable text ends at a marker, other requests are untouched", () => {
  const e2e = useE2E({ models: MODELS });

  it("an otto session's request: the agent's prompt, then otto's stable head, each marked; the environment after them; the first message as two, marked", async () => {
    const ws = await e2e.workspace({
      models: MODELS,
      files: specFiles(tasksMd([["task-001", "pending", 1, [], "Write the greeting"]])),
      ottoConfig: {
        models: { primary: "mock/claude-m1", secondary: "mock/claude-m2" },
        spec: { verify: [], docs_alignment: false, review_gate: false },
      },
    });
    e2e.model.script(...slashCommand("otto_spec"), execModel(ws.project));
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);

    const head = templateHead(compilePrompt("execute-task").body);
    const executor = e2e.model.turns().filter((r) => execKindOf(r.lastUser) === "execute-task");
    expect(executor.length).toBeGreaterThanOrEqual(1);
    for (const req of executor) {
      // Three system parts: the agent's prompt, otto's stable head, the environment.
      expect(systems(req)).toHaveLength(3);
      const [agent, stable, rest] = systems(req);
      // The stable head is a system part of its own, marked, and no longer in the user message.
      expect(contentText(stable!)).toBe(head);
      expect(marked(stable!)).toBe(true);
      expect(marked(agent!)).toBe(true);
      expect(contentText(agent!)).not.toContain("<env>");
      // What varies from one session to the next (the working directory, the date) comes after the marker.
      expect(contentText(rest!)).toContain(`Working directory: ${ws.project}`);
      expect(marked(rest!)).toBe(false);
      // The first message goes as two: its first paragraph (the same words for every executor), then
      // the task; the first request marks both, so a later executor in this tree reads past the environment.
      const [opening, task, ...later] = messagesOf(req).filter((m) => m.role !== "system");
      expect([opening!.role, task!.role]).toEqual(["user", "user"]);
      expect(contentText(opening!)).toBe("# The task");
      expect(contentText(task!)).toContain("task-001");
      expect(contentText(task!)).not.toContain(head.slice(0, 200));
      if (later.length === 0) expect([marked(opening!), marked(task!)]).toEqual([true, true]);
    }
    expect(executor.some((req) => messagesOf(req).filter((m) => m.role !== "system").length === 2)).toBe(true);
    // Every otto session, with a head or not, has the same layout: its agent's prompt alone first
    // (the same bytes for every session of the agent), marked; the environment in the last part.
    const ottos = e2e.model.turns().filter((r) => !/<args>/.test(JSON.stringify(r.messages)));
    expect(ottos.length).toBeGreaterThan(executor.length);
    for (const req of ottos) {
      const parts = systems(req);
      expect(parts.length).toBeGreaterThanOrEqual(2);
      expect(contentText(parts[0]!)).not.toContain("<env>");
      expect(marked(parts[0]!)).toBe(true);
      expect(contentText(parts.at(-1)!)).toContain("<env>");
    }
  });

  it("a plain opencode run to the build agent: the request body is byte for byte the same with otto loaded and without", async () => {
    const bodies: string[] = [];
    for (const plugin of [true, false]) {
      const ws = await e2e.workspace({ models: MODELS, plugin });
      e2e.model.reset();
      e2e.model.script({ match: { lastUser: "hello there" }, reply: text("Hello.") });
      const run = await e2e.run(ws, ["run", "hello there"]);
      expect(run.exitCode, run.stderr).toBe(0);
      const [turn, ...others] = e2e.model.turns();
      expect(others).toEqual([]);
      // OpenCode's own markers are there: the comparison is of a request OpenCode shapes for a cache.
      expect(systems(turn!).some(marked)).toBe(true);
      bodies.push(normalized(turn!, ws));
    }
    expect(bodies[0]).toBe(bodies[1]);
  });
});
