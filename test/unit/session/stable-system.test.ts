import { describe, expect, it } from "vitest";
import { renderPrompt, stableHead, templateHead, MIN_STABLE_HEAD } from "../../../src/prompts/index.ts";
import { splitFirstMessage, splitSystem, StableSystems, type HookMessage } from "../../../src/session/stable-system.ts";

const AGENT = "You are otto's executor.";
const ENV = "You are powered by the model named m1.\n<env>\n  Working directory: /tmp/a\n</env>";
const STABLE = "# Rules\n\nDo the task.";

describe("otto's stable text as a system part of its own", () => {
  it("splits OpenCode's system message into the agent's prompt, the stable head and the rest", () => {
    const whole = [AGENT, ENV, STABLE].join("\n");
    expect(splitSystem([whole], AGENT, { stable: STABLE, system: STABLE })).toEqual([AGENT, STABLE, ENV]);
    const withExtra = [AGENT, ENV, `${STABLE}\n\nextra`].join("\n");
    expect(splitSystem([withExtra], AGENT, { stable: STABLE, system: `${STABLE}\n\nextra` })).toEqual([AGENT, STABLE, `${ENV}\nextra`]);
  });

  it("splits a session without a stable head at the agent's prompt too: one layout for every otto session", () => {
    const whole = [AGENT, ENV].join("\n");
    expect(splitSystem([whole], AGENT, { stable: "", system: "" })).toEqual([AGENT, ENV]);
    // The agent's prompt alone is nothing to split.
    expect(splitSystem([AGENT], AGENT, { stable: "", system: "" })).toBeUndefined();
    // The first part is the same bytes whether the session has a head or not.
    const headed = splitSystem([[AGENT, ENV, STABLE].join("\n")], AGENT, { stable: STABLE, system: STABLE });
    expect(headed?.[0]).toBe(splitSystem([whole], AGENT, { stable: "", system: "" })?.[0]);
  });

  it("leaves a system message it does not recognise as it is", () => {
    expect(splitSystem([[ENV, STABLE].join("\n")], AGENT, { stable: STABLE, system: STABLE })).toBeUndefined();
    expect(splitSystem([[AGENT, ENV].join("\n")], AGENT, { stable: STABLE, system: STABLE })).toBeUndefined();
    expect(splitSystem([[AGENT, ENV, STABLE].join("\n")], undefined, { stable: STABLE, system: STABLE })).toBeUndefined();
  });

  it("touches only the sessions otto noted, and forgets a closed one", () => {
    const systems = new StableSystems();
    systems.noteAgents({ "otto-executor": { prompt: AGENT }, build: { prompt: AGENT } }, ["otto-executor"]);
    systems.note("ses_otto", { agent: "otto-executor", stable: STABLE, system: STABLE });
    const whole = [AGENT, ENV, STABLE].join("\n");
    const other = [whole];
    systems.transform("ses_other", other);
    systems.transform(undefined, other);
    expect(other).toEqual([whole]);
    const own = [whole];
    systems.transform("ses_otto", own);
    expect(own).toEqual([AGENT, STABLE, ENV]);
    systems.forget("ses_otto");
    const again = [whole];
    systems.transform("ses_otto", again);
    expect(again).toEqual([whole]);
  });
});

describe("an otto session's first message, sent as two", () => {
  const claude = { providerID: "anthropic", modelID: "claude-sonnet-4-5" };
  const user = (text: string, sessionID = "ses_otto", model = claude): HookMessage => ({
    info: { role: "user", sessionID, model },
    parts: [
      { type: "text", text },
      { type: "file", text: undefined },
    ],
  });
  const assistant: HookMessage = { info: { role: "assistant", sessionID: "ses_otto" }, parts: [{ type: "text", text: "Done." }] };

  it("its first paragraph, then the rest with the message's other parts; later messages as they were", () => {
    const messages = [user("# The task\n\n- id: task-001\n\nMore."), assistant, user("Again.\n\nPlease.")];
    splitFirstMessage(messages);
    expect(messages.map((m) => [m.info.role, m.parts.map((p) => p.text ?? p.type)])).toEqual([
      ["user", ["# The task"]],
      ["user", ["- id: task-001\n\nMore.", "file"]],
      ["assistant", ["Done."]],
      ["user", ["Again.\n\nPlease.", "file"]],
    ]);
  });

  it("leaves a first message of one paragraph, or without text, as it is", () => {
    for (const messages of [
      [user("One paragraph.")],
      [user("\n\nLeading blank.")],
      [{ info: { role: "user" }, parts: [{ type: "file" }] }],
    ]) {
      const before = structuredClone(messages);
      splitFirstMessage(messages);
      expect(messages).toEqual(before);
    }
  });

  it("touches only the sessions otto noted", () => {
    const systems = new StableSystems();
    systems.note("ses_otto", { agent: "otto-executor", stable: STABLE, system: STABLE });
    const other = [user("A.\n\nB.", "ses_other")];
    systems.messages(other);
    expect(other).toHaveLength(1);
    const own = [user("A.\n\nB.")];
    systems.messages(own);
    expect(own.map((m) => m.parts[0]!.text)).toEqual(["A.", "B."]);
    systems.forget("ses_otto");
    const closed = [user("A.\n\nB.")];
    systems.messages(closed);
    expect(closed).toHaveLength(1);
  });

  it("only on models OpenCode marks for caching: Anthropic's, or named like Claude's", () => {
    const systems = new StableSystems();
    systems.note("ses_otto", { agent: "otto-executor", stable: STABLE, system: STABLE });
    const on = (providerID: string, modelID: string) => {
      const messages = [user("A.\n\nB.", "ses_otto", { providerID, modelID })];
      systems.messages(messages);
      return messages.length === 2;
    };
    expect([on("anthropic", "x"), on("openrouter", "anthropic/claude-opus-4"), on("mock", "claude-m1")]).toEqual([true, true, true]);
    expect([on("openai", "gpt-5"), on("google", "gemini-2.5-pro")]).toEqual([false, false]);
  });
});

describe("the stable head of otto's prompts", () => {
  it("ends a template's head at the line before its first variable", () => {
    expect(templateHead("Rules.\n\nMore rules.\nThe task: {{task}}")).toBe("Rules.");
    expect(templateHead("Rules.\n\nMore rules.\n\n# The task\n\n- id: {{task}}")).toBe("Rules.\n\nMore rules.");
    expect(templateHead("No variables.")).toBe("No variables.");
  });

  it("finds the executor's rules at the start of its rendered prompt, and nothing in a short or foreign text", () => {
    const text = renderPrompt("execute-task", {
      task_id: "task-001",
      task_title: "Add a route",
      task_description: "Add GET /health.",
      task_files: ["src/app.js"],
      spec_dir: ".otto/specs/x",
      spec_files: [],
    });
    const head = stableHead(text);
    expect(head).toBeDefined();
    expect(head!.length).toBeGreaterThanOrEqual(MIN_STABLE_HEAD);
    expect(head).not.toContain("task-001");
    expect(text.slice(head!.length)).toContain("task-001");
    // The message after the head starts with the task's own section: head and rest read as the prompt was.
    expect(text.slice(head!.length).trimStart().startsWith("# The task\n\n- **id**: task-001")).toBe(true);
    expect(`${head!}\n\n${text.slice(head!.length).trimStart()}`).toBe(text);
    expect(stableHead("Say hello.")).toBeUndefined();
    expect(stableHead(head!)).toBeUndefined();
  });
});
