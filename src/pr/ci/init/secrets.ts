/*
 * Which secrets a CI job needs for the models otto uses: one or more environment variables per
 * model provider. OpenCode knows them for the providers it has loaded (`env` of each provider in
 * `config.providers`, from models.dev); the table below covers the common ones when OpenCode has
 * not loaded the provider (no key on this machine). https://models.dev (each provider's `env`)
 */
const KNOWN: Record<string, readonly string[]> = {
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  google: ["GOOGLE_GENERATIVE_AI_API_KEY"],
  openrouter: ["OPENROUTER_API_KEY"],
  groq: ["GROQ_API_KEY"],
  mistral: ["MISTRAL_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"],
  xai: ["XAI_API_KEY"],
  opencode: ["OPENCODE_API_KEY"],
  azure: ["AZURE_API_KEY", "AZURE_RESOURCE_NAME"],
  "amazon-bedrock": ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"],
};

/** Providers whose login is OpenCode's OAuth (auth.json), not a key a CI secret can carry. */
const OAUTH_ONLY = new Set(["github-copilot"]);

export interface ProviderSecrets {
  provider: string;
  /** Secret names, each passed to the job as the environment variable of the same name. */
  names: string[];
  /** How the names were found: OpenCode's provider list, otto's table, or a guess to check. */
  source: "opencode" | "known" | "placeholder" | "oauth";
}

/** A guessed variable name for a provider nobody knows: `my-llm` → `MY_LLM_API_KEY`. */
const placeholder = (provider: string): string =>
  `${
    provider
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "") || "MODEL"
  }_API_KEY`;

/**
 * Pure: the secrets of each provider of `models` (`provider/model` names), in first-use order.
 * `opencodeEnv` is what OpenCode reports per provider id; an empty list there (a provider from
 * opencode.json with its key inline, or none) falls through to the table, then to a placeholder.
 */
export function providerSecrets(models: readonly string[], opencodeEnv: ReadonlyMap<string, readonly string[]>): ProviderSecrets[] {
  const providers = [...new Set(models.map((m) => m.split("/")[0] ?? "").filter(Boolean))];
  return providers.map((provider) => {
    if (OAUTH_ONLY.has(provider)) return { provider, names: [], source: "oauth" };
    const fromOpencode = opencodeEnv.get(provider) ?? [];
    if (fromOpencode.length > 0) return { provider, names: [...fromOpencode], source: "opencode" };
    const known = KNOWN[provider];
    if (known) return { provider, names: [...known], source: "known" };
    return { provider, names: [placeholder(provider)], source: "placeholder" };
  });
}

/** Every secret name once, in order. */
export const secretNames = (secrets: readonly ProviderSecrets[]): string[] => [...new Set(secrets.flatMap((s) => s.names))];
