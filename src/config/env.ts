import type { Env } from "../core/index.ts";

/**
 * Environment variables that override config keys (env wins over both files). These are the
 * variables the tools themselves read, so one token serves gh, az and otto alike.
 */
export const ENV_OVERRIDES = [
  { name: "GITHUB_TOKEN", key: "pr.providers.github.token" },
  { name: "OTTO_GITHUB_BOT_LOGIN", key: "pr.providers.github.bot_login" },
  { name: "OTTO_ADO_PAT", key: "pr.providers.ado.pat" },
  { name: "OPENCODE_SERVER_PASSWORD", key: "opencode.password" },
  { name: "OPENCODE_SERVER_USERNAME", key: "opencode.username" },
] as const;

export interface EnvLayer {
  /** A partial config holding the overriding values. */
  value: Record<string, unknown>;
  /** Key path → the variable that set it. */
  applied: Record<string, string>;
}

/** The env overrides present in `env` as a config layer. Empty variables count as unset. */
export function envLayer(env: Env): EnvLayer {
  const value: Record<string, unknown> = {};
  const applied: Record<string, string> = {};
  for (const { name, key } of ENV_OVERRIDES) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    const path = key.split(".");
    let node = value;
    for (const segment of path.slice(0, -1)) {
      node[segment] ??= {};
      node = node[segment] as Record<string, unknown>;
    }
    node[path[path.length - 1] ?? ""] = raw;
    applied[key] = name;
  }
  return { value, applied };
}
