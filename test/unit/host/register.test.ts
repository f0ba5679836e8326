import { describe, expect, it } from "vitest";
import type { Config } from "@opencode-ai/plugin";
import { silentLogger } from "../../../src/core/index.ts";
import { SessionGuard } from "../../../src/guard/session-guard.ts";
import { commandTool, OTTO_COMMANDS, REPEAT_LINE, TUI_LINE } from "../../../src/host/command-output.ts";
import { mergeUnder, registerOtto, withOttoPermissions } from "../../../src/host/register.ts";
import { loadAgents, loadCommandAgents, loadCommands } from "../../../src/host/render-assets.ts";

describe("assets", () => {
  it("loads the role agents with their permissions", () => {
    const agents = loadAgents();
    expect(Object.keys(agents).sort()).toEqual(["otto", "otto-crew", "otto-executor", "otto-reviewer"]);
    // The crew's tools: offered to crew agents, not to the orchestrator.
    expect(agents["otto-crew"]?.permission).toMatchObject({ "otto_*": "deny", "otto_agent_*": "allow", question: "deny" });
    expect(agents.otto?.mode).toBe("primary");
    expect(agents["otto-reviewer"]).toMatchObject({ mode: "subagent", permission: { edit: "deny" } });
    const bash = (agents["otto-executor"]?.permission as { bash: Record<string, string> }).bash;
    expect(bash["git push --force*"]).toBe("deny");
    expect(bash["git push -f*"]).toBe("deny");
    expect(String(agents.otto?.prompt)).toContain("You are Otto");
    // A subagent started by one of otto's sessions would escape its guards: none of them may start one.
    for (const name of ["otto-crew", "otto-executor", "otto-reviewer"]) expect(agents[name]?.permission).toMatchObject({ task: "deny" });
    expect(agents["otto-reviewer"]?.permission).toMatchObject({ todowrite: "deny" });
  });

  it("loads every command with a template that passes $ARGUMENTS to its tool", () => {
    const commands = loadCommands();
    expect(Object.keys(commands)).toContain("otto-config");
    for (const [name, command] of Object.entries(commands)) {
      expect(command.template).toContain("$ARGUMENTS");
      // /pr-review's tool is otto_pr_review: every otto tool name starts with otto_ (the permission rules rely on it).
      const tool = name.replace(/-/g, "_");
      expect(command.template).toContain(`\`${tool.startsWith("otto_") ? tool : `otto_${tool}`}\``);
      expect(command.agent).toBe(`otto.${name.replace(/^otto-/, "")}`);
    }
  });

  it("gives every command an agent of its own that is offered the command's tool and nothing else", () => {
    const commands = loadCommands();
    const agents = loadCommandAgents(commands);
    expect(Object.keys(agents).sort()).toEqual(
      Object.values(commands)
        .map((c) => String(c.agent))
        .sort(),
    );
    for (const [name, command] of Object.entries(commands)) {
      const agent = agents[String(command.agent)] ?? {};
      const tool = commandTool(name);
      // OpenCode leaves a tool out of the request when the last rule matching it is a deny for "*".
      expect(Object.entries(agent.permission as Record<string, string>)).toEqual([
        ["*", "deny"],
        [tool, "allow"],
      ]);
      // Hidden and primary: not in the TUI's agent list or Tab cycle, and not run as a subtask.
      expect(agent).toMatchObject({ mode: "primary", hidden: true });
      expect(String(agent.prompt)).toContain(`call \`${tool}\` exactly once`);
      expect(String(agent.prompt)).toContain(`/${name}`);
      expect(String(agent.prompt)).not.toMatch(/\{\{|\}\}/);
      expect(String(agent.description)).toContain(tool);
    }
    // The dispatching verbs are typed tools of their own (otto_spec_execute, otto_pr_create, otto_pr_watch), called by the otto agent, not by the commands.
    expect(String(commands["otto-spec"]?.template)).not.toContain("otto_spec_execute");
    expect(String(commands["otto-pr"]?.template)).not.toMatch(/otto_pr_(create|watch)/);
  });

  it("a command's turn runs in the user's session without making it one of otto's guarded sessions", () => {
    const guard = new SessionGuard({ directory: "/nowhere", env: {}, log: silentLogger });
    for (const name of Object.keys(loadCommandAgents())) guard.noteAgent(`session-${name}`, name);
    for (const name of Object.keys(loadCommandAgents())) expect(guard.isGuarded(`session-${name}`), name).toBe(false);
    guard.noteAgent("executor", "otto-executor");
    expect(guard.isGuarded("executor")).toBe(true);
  });

  it("refuses a command without an agent of its own", () => {
    expect(() => loadCommandAgents({ a: { agent: "otto.x", template: "" }, b: { agent: "otto.x", template: "" } })).toThrow(
      /commands\/b\.md needs an agent of its own/,
    );
    expect(() => loadCommandAgents({ a: { template: "" } })).toThrow(/commands\/a\.md/);
    // Not otto-…: the guard takes every session running an otto-… agent for one of otto's own.
    expect(() => loadCommandAgents({ a: { agent: "otto-a", template: "" } })).toThrow(/named otto\.<command>/);
  });
});

describe("registerOtto", () => {
  it("in the TUI, every otto command asks the model for Done instead of the repeated output (otto shows it)", () => {
    const commands = loadCommands();
    expect(new Set(Object.keys(commands))).toEqual(OTTO_COMMANDS);
    const tui = {} as Config;
    registerOtto(tui, undefined, { tui: true });
    const headless = {} as Config;
    registerOtto(headless);
    for (const name of OTTO_COMMANDS) {
      expect(String(commands[name]?.template)).toContain(REPEAT_LINE);
      expect(String((tui.command as Record<string, { template: string }>)[name]?.template)).toContain(TUI_LINE);
      expect(String((headless.command as Record<string, { template: string }>)[name]?.template)).toContain(REPEAT_LINE);
    }
  });

  it("merges under the user's config: the user's keys win", () => {
    const config = {
      agent: { otto: { model: "mine/model", permission: { bash: "ask" } }, build: { model: "x/y" } },
      command: { "otto-config": { description: "my own" }, other: { template: "t" } },
    } as unknown as Config;
    registerOtto(config);
    const agent = config.agent as Record<string, Record<string, unknown>>;
    expect(agent.otto?.model).toBe("mine/model");
    expect(agent.otto?.mode).toBe("primary");
    expect(agent.otto?.permission).toEqual({ "otto_*": "allow", "otto_agent_*": "deny", bash: "ask" });
    expect(agent.build).toEqual({ model: "x/y" });
    const command = config.command as Record<string, Record<string, unknown>>;
    expect(command["otto-config"]?.description).toBe("my own");
    expect(command["otto-config"]?.template).toContain("otto_config");
    expect(command.other).toEqual({ template: "t" });
  });

  it("denies otto tools and subagents globally, appended after the user's rules", () => {
    expect(withOttoPermissions(undefined)).toEqual({ "otto_*": "deny", task: { "otto-*": "deny" } });
    const fromString = withOttoPermissions("allow");
    expect(Object.entries(fromString)).toEqual([
      ["*", "allow"],
      ["otto_*", "deny"],
      ["task", { "otto-*": "deny" }],
    ]);
    expect(withOttoPermissions({ task: "allow" }).task).toEqual({ "*": "allow", "otto-*": "deny" });
  });

  it("lets the user opt in to otto tools or subagents", () => {
    const out = withOttoPermissions({ "otto_*": "allow", task: { "otto-*": "allow" } });
    expect(out["otto_*"]).toBe("allow");
    expect(out.task).toEqual({ "otto-*": "allow" });
  });

  it("mergeUnder replaces arrays and merges objects", () => {
    expect(mergeUnder({ a: { b: 1, c: [1, 2] } }, { a: { c: [3] } })).toEqual({ a: { b: 1, c: [3] } });
  });
});

describe("otto's agents under a user's or a project's entry", () => {
  type Agents = Record<string, Record<string, unknown>>;
  const register = (agent: Record<string, unknown>): Agents => {
    const config = { agent } as unknown as Config;
    registerOtto(config);
    return config.agent as Agents;
  };
  const own = loadAgents();

  it("a project's agent.otto-reviewer with bash and edit allowed ends with otto's restrictions", () => {
    const agents = register({
      "otto-reviewer": {
        model: "p/m",
        temperature: 0.3,
        mode: "primary",
        hidden: false,
        disable: true,
        permission: { bash: "allow", edit: "allow", task: "allow", "otto_*": "allow", webfetch: "deny" },
        tools: { bash: true, write: true },
      },
    });
    const reviewer = agents["otto-reviewer"] ?? {};
    expect(reviewer.permission).toMatchObject({ edit: "deny", task: "deny", todowrite: "deny", "otto_*": "deny", webfetch: "deny" });
    expect((reviewer.permission as Record<string, unknown>).bash).toEqual(
      (own["otto-reviewer"]?.permission as Record<string, unknown>).bash,
    );
    expect(reviewer).toMatchObject({ mode: "subagent", hidden: true, model: "p/m", temperature: 0.3 });
    expect(reviewer).not.toHaveProperty("disable");
    expect(reviewer).not.toHaveProperty("tools");
  });

  it("otto's rules come after the user's others, so a wildcard allow cannot reach past them (OpenCode: last match wins)", () => {
    const permission = register({ "otto-reviewer": { permission: { "*": "allow", "ed*": "allow", read: "allow" } } })["otto-reviewer"]
      ?.permission as Record<string, unknown>;
    const keys = Object.keys(permission);
    expect(keys.slice(0, 3)).toEqual(["*", "ed*", "read"]);
    expect(keys.indexOf("edit")).toBeGreaterThan(keys.indexOf("ed*"));
    expect(keys.indexOf("bash")).toBeGreaterThan(keys.indexOf("*"));
  });

  it("the user's denials restrict otto's agents further, an ask replaces otto's allow of the same pattern, other allows and asks are dropped", () => {
    const agents = register({
      "otto-executor": { permission: { bash: { "rm -rf *": "deny", "git push*": "allow", "*": "ask" }, edit: { "secrets/*": "deny" } } },
      "otto-crew": { permission: { bash: "deny" } },
      "otto-reviewer": { permission: { bash: { "git diff *": "deny", "*": "ask", "git log *": "ask" } } },
    });
    const exec = agents["otto-executor"]?.permission as Record<string, Record<string, string>>;
    expect(exec.bash?.["rm -rf *"]).toBe("deny");
    expect(exec.bash?.["git push*"]).toBe("deny");
    // The user wants to be asked before any of the executor's commands: ask, in allow's place.
    expect(exec.bash?.["*"]).toBe("ask");
    expect(Object.keys(exec.bash ?? {})[0]).toBe("*");
    // The denial is the last rule, so it is the one OpenCode applies.
    expect(Object.keys(exec.bash ?? {}).at(-1)).toBe("rm -rf *");
    expect(exec.edit).toEqual({ "*": "allow", "secrets/*": "deny" });
    expect((agents["otto-crew"]?.permission as Record<string, Record<string, string>>).bash?.["*"]).toBe("deny");
    const reviewer = (agents["otto-reviewer"]?.permission as Record<string, Record<string, string>>).bash;
    expect(reviewer?.["git diff *"]).toBe("deny");
    // An ask never loosens a deny: the reviewer's "*" stays denied; "git log *" (allowed by otto) now asks.
    expect(reviewer?.["*"]).toBe("deny");
    expect(reviewer?.["git log *"]).toBe("ask");
  });

  it("tools entries count as the rules they stand for: true is dropped, false denies", () => {
    const agents = register({ "otto-executor": { tools: { bash: false, webfetch: true, write: true } } });
    const exec = agents["otto-executor"] ?? {};
    expect(exec.tools).toEqual({ bash: false });
    const permission = exec.permission as Record<string, unknown>;
    expect((permission.bash as Record<string, string>)["*"]).toBe("deny");
    expect(permission.webfetch).toBe("allow");
    expect(permission.edit).toBe("allow");
  });

  it("a project's entry for a command's agent cannot give it more tools, and the command agents take the model chosen for otto", () => {
    const agents = register({
      otto: { model: "mine/fast", variant: "low", prompt: "Be brief.", permission: { bash: "allow" } },
      "otto.spec": {
        mode: "subagent",
        hidden: false,
        permission: { "*": "allow", bash: "allow", otto_spec: "deny" },
        tools: { read: true },
      },
      "otto.pr": { model: "mine/other" },
    });
    const spec = agents["otto.spec"] ?? {};
    expect(spec).toMatchObject({ mode: "primary", hidden: true, model: "mine/fast", variant: "low" });
    // The user's read and bash first, then otto's "*" deny after them (last match wins: both tools
    // stay out of the request); the user's "*" allow is dropped, their denial of the tool itself stands.
    expect(Object.entries(spec.permission as Record<string, unknown>)).toEqual([
      ["read", "allow"],
      ["bash", "allow"],
      ["*", "deny"],
      ["otto_spec", { "*": "deny" }],
    ]);
    expect(spec).not.toHaveProperty("tools");
    expect(String(spec.prompt)).toContain("/otto-spec");
    expect(agents["otto.pr"]).toMatchObject({ model: "mine/other", variant: "low" });
    expect(agents["otto.pr"]?.permission as Record<string, unknown>).toEqual({ "*": "deny", otto_pr: "allow" });
    expect(agents.otto).toMatchObject({ prompt: "Be brief." });
  });

  it("the user's other keys and other agents stay as they wrote them", () => {
    const agents = register({ otto: { model: "mine/model", prompt: "Be brief.", hidden: true }, build: { permission: { bash: "allow" } } });
    expect(agents.otto).toMatchObject({ model: "mine/model", prompt: "Be brief.", mode: "primary", hidden: true });
    expect(agents.build).toEqual({ permission: { bash: "allow" } });
    for (const name of ["otto-crew", "otto-executor", "otto-reviewer"]) expect(agents[name]?.permission).toEqual(own[name]?.permission);
  });
});
