import type { Env } from "../core/paths.ts";
import type { Logger } from "../core/log.ts";
import type { LoadedConfig } from "../config/index.ts";
import type { SandboxAccess, SandboxMode } from "../sandbox/index.ts";

/*
 * What the guard reads from otto's config for a folder: the forge hosts a command may not call,
 * the token values to blank and redact, the sandbox, the watcher's port, the repeated-call limit.
 * Reused for a minute; a config that cannot be read gives the defaults, never an error (a broken
 * otto.jsonc must not stop a session's shell).
 */

export interface ForgeConfig {
  hosts: string[];
  secrets: string[];
  /** otto.jsonc `sandbox`: where a guarded session's shell commands run. */
  sandbox: SandboxMode;
  /** otto.jsonc `sandbox_access`: the network and the paths the sandbox shows beyond its defaults. */
  sandboxAccess?: SandboxAccess;
  /** server.port: where the detached watcher's `opencode serve` listens. */
  serverPort: number;
  /** limits.repeated_tool_calls. */
  repeatedToolCalls: number;
}

/** How long the forge hosts and token values read from otto.jsonc are reused. */
export const CONFIG_TTL_MS = 60_000;
/** server.port's default (src/config/schema.ts), used when otto.jsonc cannot be read. */
export const DEFAULT_SERVER_PORT = 4097;
/** limits.repeated_tool_calls's default (src/config/schema.ts), used when otto.jsonc cannot be read. */
export const DEFAULT_REPEATED_TOOL_CALLS = 5;

export interface GuardConfigDeps {
  env: Env;
  log: Logger;
  now: () => number;
  /** Reads the config of a folder (config/index.ts's loadConfig, loaded on first use). */
  load?: (options: { directory: string; env: Env }) => Promise<Pick<LoadedConfig, "config" | "secrets">>;
}

export class GuardConfig {
  readonly #cache = new Map<string, { at: number; value: Promise<ForgeConfig> }>();

  constructor(private readonly deps: GuardConfigDeps) {}

  /** Forge hosts and token values of otto's config for `directory`; never rejects. */
  of(directory: string): Promise<ForgeConfig> {
    const now = this.deps.now();
    const cached = this.#cache.get(directory);
    if (cached && now - cached.at < CONFIG_TTL_MS) return cached.value;
    const load = this.deps.load ?? (async (options) => (await import("../config/index.ts")).loadConfig(options));
    const value = Promise.resolve()
      .then(() => load({ directory, env: this.deps.env }))
      .then(({ config, secrets }) => ({
        hosts: forgeHosts(config.pr.providers),
        secrets,
        sandbox: config.sandbox,
        sandboxAccess: config.sandbox_access,
        serverPort: config.server.port,
        repeatedToolCalls: config.limits.repeated_tool_calls,
      }))
      .catch((error: unknown) => {
        // The built-in hosts and the token variables by name still apply.
        this.deps.log.log("warn", "otto guard: could not read otto's config; using the defaults", {
          error: error instanceof Error ? error.message : String(error),
        });
        return {
          hosts: [],
          secrets: [],
          sandbox: "auto" as const,
          serverPort: DEFAULT_SERVER_PORT,
          repeatedToolCalls: DEFAULT_REPEATED_TOOL_CALLS,
        };
      });
    this.#cache.set(directory, { at: now, value });
    return value;
  }
}

/** The hosts of the configured forges, in lower case: GitHub's listed hosts and API host, Azure DevOps' host. */
export function forgeHosts(providers: { github: { api_url: string; hosts: string[] }; ado: { base_url: string } }): string[] {
  const hosts = [...providers.github.hosts];
  for (const url of [providers.github.api_url, providers.ado.base_url]) {
    try {
      hosts.push(new URL(url).hostname);
    } catch {
      // The schema checked it; nothing to add otherwise.
    }
  }
  return hosts.map((h) => h.toLowerCase());
}
