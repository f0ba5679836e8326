import { REPEAT_LINE, TUI_LINE } from "./command-output.ts";
import type { Config } from "@opencode-ai/plugin";
import { AGENTS, COMMAND_AGENTS, COMMANDS } from "./asset-manifest.ts";
import { isRecord } from "../core/objects.ts";
type Json = Record<string, unknown>;

/** Deep merge where `over` wins; used to lay the user's config over otto's defaults. */
export function mergeUnder(defaults: Json, over: Json): Json {
  const out: Json = { ...defaults };
  for (const [key, value] of Object.entries(over)) {
    const base = out[key];
    out[key] = isRecord(base) && isRecord(value) ? mergeUnder(base, value) : value;
  }
  return out;
}

/** Permission rules as an ordered object; a bare action ("allow") becomes `{ "*": action }`. */
function ruleObject(value: unknown): Json {
  if (typeof value === "string") return { "*": value };
  return isRecord(value) ? value : {};
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

type Rules = Record<string, unknown>;

/**
 * OpenCode's deprecated `tools` map as the permission rules it stands for (OpenCode 1.18's agent
 * config decoder: `write`, `edit` and `patch` are the `edit` permission; true allows, false denies).
 */
function toolRules(tools: unknown): Rules {
  const out: Rules = {};
  if (!isRecord(tools)) return out;
  for (const [tool, on] of Object.entries(tools)) {
    if (typeof on !== "boolean") continue;
    out[tool === "write" || tool === "patch" ? "edit" : tool] = on ? "allow" : "deny";
  }
  return out;
}

/** Only the denials of a rule (a bare action, or patterns): what may be laid after otto's rules. */
function denials(value: unknown, own: unknown): Json | undefined {
  const rules = ruleObject(value);
  const ottos = ruleObject(own);
  // A deny anywhere; an ask only where it replaces otto's allow of the same pattern (never a deny).
  const denied = Object.fromEntries(
    Object.entries(rules).filter(([pattern, action]) => action === "deny" || (action === "ask" && ottos[pattern] === "allow")),
  );
  return Object.keys(denied).length > 0 ? denied : undefined;
}

/**
 * The permission of one of otto's agents under a user's (or a project's) agent entry. OpenCode
 * flattens an agent's permission in key order and the last matching rule wins, a key such as `*`
 * or `ed*` matching other tools too. So:
 * 1. the user's rules for permissions otto does not set come first (they decide what otto's
 *    agent leaves open, e.g. `webfetch`, and a `"*": "allow"` cannot reach past otto's rules);
 * 2. otto's rules follow, whole, for every permission it sets (the reviewer's `edit`, `bash`,
 *    `todowrite`, every subagent's `task: deny`, the executor's and crew's push denials, `otto_*`);
 * 3. within those, the user's `deny` patterns are laid over otto's (same pattern: replaced in
 *    place; a new one: appended last), since a denial can only restrict more, and so is an `ask`
 *    where otto's rule for the same pattern is `allow` (the user wants to be asked before any of
 *    the executor's commands). Other `allow` and `ask` rules for them are dropped.
 * `tools` entries count as the rules they stand for, before the entry's `permission`, as in OpenCode.
 */
export function guardedPermission(own: unknown, user: Json): Json {
  const ottoRules = ruleObject(own);
  const userRules: Json = { ...toolRules(user.tools), ...ruleObject(user.permission) };
  const out: Json = {};
  for (const [key, value] of Object.entries(userRules)) if (!(key in ottoRules)) out[key] = value;
  for (const [key, value] of Object.entries(ottoRules)) {
    const denied = key in userRules ? denials(userRules[key], value) : undefined;
    out[key] = denied ? { ...ruleObject(value), ...denied } : value;
  }
  return out;
}

/**
 * Keys of an agent entry that decide what otto's agent is and may do. Otto's definition wins for
 * them; the rest (model, variant, temperature, top_p, prompt, description, color, steps, options)
 * is the user's to set. `disable` and `name` are dropped: without its agent OpenCode would not
 * run otto's session as the agent otto asked for.
 */
const GUARDED_KEYS = ["mode", "hidden"] as const;

/** One of otto's agents with the user's (or a project's) entry for it: see guardedPermission and GUARDED_KEYS. */
export function guardAgent(own: Json, user: Json): Json {
  const out = mergeUnder(own, user);
  for (const key of GUARDED_KEYS) if (key in own) out[key] = own[key];
  delete out.disable;
  delete out.name;
  out.permission = guardedPermission(own.permission, user);
  // `tools: { bash: true }` would read as an allow again wherever a config is decoded anew; only denials stay.
  const tools = isRecord(user.tools) ? Object.fromEntries(Object.entries(user.tools).filter(([, on]) => on === false)) : {};
  if (Object.keys(tools).length > 0) out.tools = tools;
  else delete out.tools;
  return out;
}

/**
 * What a command's agent takes from the user's entry for the `otto` agent, which ran the commands
 * before they had agents of their own: a model chosen for otto's commands stays theirs. The
 * command agent's own entry wins.
 */
const INHERITED_FROM_OTTO = ["model", "variant", "temperature", "top_p", "options"] as const;

function inheritedFromOtto(userAgents: Json): Json {
  const otto = isRecord(userAgents.otto) ? userAgents.otto : {};
  return Object.fromEntries(INHERITED_FROM_OTTO.filter((key) => key in otto).map((key) => [key, otto[key]]));
}

export interface OttoAssets {
  /** agents/*.md */
  agents: Record<string, Json>;
  /** The agent of each command's turn (agents/command/agent.md), named by the command's `agent:`. */
  commandAgents?: Record<string, Json>;
  commands: Record<string, Json>;
}

/**
 * The `config` hook: registers otto's agents, commands and permission defaults under the user's.
 * Otto's agents are the exception: their guarding keys are otto's (guardAgent), since the config
 * OpenCode hands over includes the project's `opencode.json`, which a PR's branch can write.
 * With `tui`, the commands' templates ask for "Done." instead of the repeated output, which otto
 * shows itself (src/host/command-output.ts).
 */
export function registerOtto(
  config: Config,
  assets: OttoAssets = { agents: AGENTS, commandAgents: COMMAND_AGENTS, commands: COMMANDS },
  options: { tui?: boolean } = {},
): void {
  const cfg = config as Json;
  const userAgents = isRecord(cfg.agent) ? cfg.agent : {};
  const agents: Json = { ...userAgents };
  for (const [name, agent] of Object.entries(assets.agents)) {
    agents[name] = guardAgent(agent, isRecord(userAgents[name]) ? userAgents[name] : {});
  }
  const fromOtto = inheritedFromOtto(userAgents);
  for (const [name, agent] of Object.entries(assets.commandAgents ?? {})) {
    agents[name] = guardAgent(agent, { ...fromOtto, ...(isRecord(userAgents[name]) ? userAgents[name] : {}) });
  }
  cfg.agent = agents;

  const userCommands = isRecord(cfg.command) ? cfg.command : {};
  const commands: Json = { ...userCommands };
  for (const [name, command] of Object.entries(assets.commands)) {
    const own =
      options.tui && typeof command.template === "string"
        ? { ...command, template: command.template.replace(REPEAT_LINE, TUI_LINE) }
        : command;
    commands[name] = mergeUnder(own, isRecord(userCommands[name]) ? userCommands[name] : {});
  }
  cfg.command = commands;

  cfg.permission = withOttoPermissions(cfg.permission);
}
