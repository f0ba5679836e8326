import type { Env } from "./paths.ts";

/**
 * Credentials otto, OpenCode or a CI runner put in the environment. They are secrets whether or not
 * otto reads them: a model that runs `env` in a shell sees them all. (GH_TOKEN is the GitHub CLI's,
 * SYSTEM_ACCESSTOKEN the Azure Pipelines job token; GITHUB_TOKEN, OTTO_ADO_PAT and
 * OPENCODE_SERVER_PASSWORD also arrive through the config's env layer.)
 */
export const SECRET_ENV = ["GITHUB_TOKEN", "GH_TOKEN", "OTTO_ADO_PAT", "SYSTEM_ACCESSTOKEN", "OPENCODE_SERVER_PASSWORD"] as const;

/** The values of SECRET_ENV set in `env`. */
export function envSecrets(env: Env): string[] {
  return SECRET_ENV.map((name) => env[name] ?? "").filter((value) => value !== "");
}

/**
 * The secrets one plugin instance knows of: the environment's from the start, and every config's
 * (tokens, webhook URLs) as it is loaded. Sinks without a config of their own (the log) redact
 * with these; a config loaded with `known` returns them all in `LoadedConfig.secrets`.
 */
export class KnownSecrets {
  readonly #values = new Set<string>();

  constructor(values: Iterable<string> = []) {
    this.add(values);
  }

  add(values: Iterable<string>): void {
    for (const value of values) if (typeof value === "string" && value !== "") this.#values.add(value);
  }

  values(): string[] {
    return [...this.#values];
  }
}
