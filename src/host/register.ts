import { REPEAT_LINE, TUI_LINE } from "./command-output.ts";
import type { Config } from "@opencode-ai/plugin";
import { AGENTS, COMMANDS } from "./asset-manifest.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep merge where `over` wins; used to lay the user's config over otto's defaults. */
export function mergeUnder(defaults: Json, over: Json): Json {
  const out: Json = { ...defaults };
  for (const [key, value] of Object.entries(over)) {
    const base = out[key];
    out[key] = isObject(base) && isObject(value) ? mergeUnder(base, value) : value;
  }
  return out;
}

/** Permission rules as an ordered object; a bare action ("allow") becomes `{ "*": action }`. */
function ruleObject(value: unknown): Json {
  if (typeof value === "string") return { "*": value };
  return isObject(value) ? value : {};
}

/**
 * Global permission defaults that keep otto out of everyone else's context: otto's tools are
 * denied for every agent (the otto agents allow them again), and otto's subagents are kept out
 * of the built-in `task` tool. OpenCode evaluates rules last-match-wins, so otto's rules are
 * appended after the user's, unless the user wrote a rule for the same pattern (the user wins).
 */
export function withOttoPermissions(permission: unknown): Json {
  const base = ruleObject(permission);
  const out: Json = { ...base };
  if (!("otto_*" in base)) out["otto_*"] = "deny";
  const task = ruleObject(base.task);
  if (!("otto-*" in task)) out.task = { ...task, "otto-*": "deny" };
  return out;
}

/**
 * The `config` hook: registers otto's agents, commands and permission defaults under the user's.
 * With `tui`, the commands' templates ask for "Done." instead of the repeated output, which otto
 * shows itself (src/host/command-output.ts).
 */
export function registerOtto(config: Config, assets: { agents: Record<string, Json>; commands: Record<string, Json> } = { agents: AGENTS, commands: COMMANDS }, options: { tui?: boolean } = {}): void {
  const cfg = config as Json;
  const userAgents = isObject(cfg.agent) ? cfg.agent : {};
  const agents: Json = { ...userAgents };
  for (const [name, agent] of Object.entries(assets.agents)) {
    agents[name] = mergeUnder(agent, isObject(userAgents[name]) ? userAgents[name] : {});
  }
  cfg.agent = agents;

  const userCommands = isObject(cfg.command) ? cfg.command : {};
  const commands: Json = { ...userCommands };
  for (const [name, command] of Object.entries(assets.commands)) {
    const own = options.tui && typeof command.template === "string" ? { ...command, template: command.template.replace(REPEAT_LINE, TUI_LINE) } : command;
    commands[name] = mergeUnder(own, isObject(userCommands[name]) ? userCommands[name] : {});
  }
  cfg.command = commands;

  cfg.permission = withOttoPermissions(cfg.permission);
}
