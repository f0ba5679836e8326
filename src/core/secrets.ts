import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "./paths.ts";

/**
 * Credentials otto, OpenCode or a CI runner put in the environment. They are secrets whether or not
 * otto reads them: a model that runs `env` in a shell sees them all. (GH_TOKEN is the GitHub CLI's,
 * SYSTEM_ACCESSTOKEN the Azure Pipelines job token; GITHUB_TOKEN, OTTO_ADO_PAT and
 * OPENCODE_SERVER_PASSWORD also arrive through the config's env layer.)
 */
export const SECRET_ENV = ["GITHUB_TOKEN", "GH_TOKEN", "OTTO_ADO_PAT", "SYSTEM_ACCESSTOKEN", "OPENCODE_SERVER_PASSWORD"] as const;

/**
 * The model providers' keys OpenCode reads from the environment (its provider list; models.dev
 * names the variables). Most end in _KEY or _TOKEN; they are listed so that a short one counts too.
 */
export const PROVIDER_KEY_ENV = [
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GOOGLE_VERTEX_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "AZURE_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
  "OPENROUTER_API_KEY",
  "GROQ_API_KEY",
  "MISTRAL_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "CEREBRAS_API_KEY",
  "COHERE_API_KEY",
  "PERPLEXITY_API_KEY",
  "HF_TOKEN",
  "GITHUB_COPILOT_TOKEN",
  "OPENCODE_API_KEY",
] as const;

/** Names that say a variable holds a credential, whoever set it. */
const SECRET_NAME = /(_KEY|_TOKEN|_SECRET|_PAT)$|PASSWORD|PASSWD|SECRET_ACCESS/i;

/**
 * A value that long or longer under a SECRET_NAME counts: shorter ones ("1", "true", a dev
 * password like "admin") appear in ordinary text, and redacting them would blank it.
 */
export const MIN_NAMED_SECRET = 12;

/**
 * The values of SECRET_ENV and PROVIDER_KEY_ENV set in `env`, and of every variable whose name
 * says it is a credential (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PAT`, `*PASSWORD*`) when at least
 * MIN_NAMED_SECRET long and not a path: a session that writes one into a file cannot commit it,
 * no log shows it, and a guarded shell has it blanked.
 */
export function envSecrets(env: Env): string[] {
  const named: readonly string[] = [...SECRET_ENV, ...PROVIDER_KEY_ENV];
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    // A path (`SSH_KEY=/home/u/.ssh/id_rsa`) says where a secret is; it is not one.
    const path = value.startsWith("/") || value.startsWith("~/");
    if (named.includes(name) || (SECRET_NAME.test(name) && value.length >= MIN_NAMED_SECRET && !path)) out.add(value);
  }
  return [...out];
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

const authCache = new Map<string, { stamp: string; values: string[] }>();

/**
 * The keys and tokens in OpenCode's own credential stores (`auth.json`: provider API keys and OAuth
 * tokens; `mcp-auth.json`), re-read when a file changes. Every string value under a key that names a
 * credential counts, whatever the provider: a tool result that shows one is redacted.
 */
export function opencodeAuthSecrets(env: Env): string[] {
  const data = path.join(xdgPaths(env).data, "opencode");
  const files = ["auth.json", "mcp-auth.json"].map((name) => path.join(data, name));
  const stamp = files.map((f) => String(fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? "-")).join("|");
  const cached = authCache.get(data);
  if (cached?.stamp === stamp) return cached.values;
  const values = new Set<string>();
  const visit = (node: unknown, key: string, depth: number): void => {
    if (typeof node === "string") {
      if (/key|token|access|refresh|secret|password/i.test(key) && node.length >= 8) values.add(node);
    } else if (node && typeof node === "object" && depth < 6) {
      for (const [k, v] of Object.entries(node)) visit(v, k, depth + 1);
    }
  };
  for (const file of files) {
    try {
      visit(JSON.parse(fs.readFileSync(file, "utf8")), "", 0);
    } catch {
      // Missing or unreadable: nothing to add.
    }
  }
  const result = [...values];
  authCache.set(data, { stamp, values: result });
  return result;
}
