import type { Config } from "../config/index.ts";
import type { Env } from "../core/index.ts";

/** The configured tokens, wherever they came from: redacted from everything otto posts or saves, beyond the known token formats. */
export function configuredSecrets(config: Config, env: Env): string[] {
  const { github, ado } = config.pr.providers;
  return [github.token, ado.pat, env.GITHUB_TOKEN, env.GH_TOKEN, env.OTTO_ADO_PAT].filter((s): s is string => typeof s === "string" && s.length > 0);
}
