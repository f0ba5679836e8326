import path from "node:path";
import { envSecrets, xdgPaths, type Env } from "../core/index.ts";
import { envLayer } from "./env.ts";
import { issueToProblems } from "./issues.ts";
import { deepMerge } from "./merge.ts";
import { configError } from "./problems.ts";
import { ConfigFile, type Config } from "./schema.ts";
import { collectSecrets } from "./secrets.ts";
import { computeSources, type ConfigLayer, type ConfigSources } from "./sources.ts";

export interface ResolvedConfig {
  config: Config;
  sources: ConfigSources;
  /**
   * Every secret value present in the files or the environment (config tokens, webhook URLs,
   * GITHUB_TOKEN, GH_TOKEN, OTTO_ADO_PAT, SYSTEM_ACCESSTOKEN, OPENCODE_SERVER_PASSWORD): what every
   * sink redacts. loadConfig with a runtime adds the runtime's other known secrets.
   */
  secrets: string[];
}

function expandHome(dir: string, home: string): string {
  return dir === "~" || dir.startsWith("~/") ? path.join(home, dir.slice(1)) : dir;
}

/**
 * Pure: merges validated layers (user, then repo), applies env overrides, fills defaults.
 * Each layer must already have passed parseConfigText, so failures here are otto bugs
 * or env values the schema rejects; both are reported like file problems.
 */
export function resolveConfig(input: { layers: readonly ConfigLayer[]; env: Env }): ResolvedConfig {
  const fromEnv = envLayer(input.env);
  const merged = deepMerge(...input.layers.map((l) => l.value), fromEnv.value);
  delete merged.$schema;
  const result = ConfigFile.safeParse(merged);
  if (!result.success) {
    const ctx = { file: "(merged config and environment)", text: "", tree: undefined, value: merged };
    throw configError(result.error.issues.flatMap((issue) => issueToProblems(issue, ctx)));
  }
  const parsed = result.data;
  const xdg = xdgPaths(input.env);
  const config: Config = {
    ...parsed,
    sandbox_access: {
      ...parsed.sandbox_access,
      allow_read: parsed.sandbox_access.allow_read.map((p) => expandHome(p, xdg.home)),
      allow_write: parsed.sandbox_access.allow_write.map((p) => expandHome(p, xdg.home)),
    },
    server: { ...parsed.server, log_dir: expandHome(parsed.server.log_dir ?? path.join(xdg.ottoDataDir, "logs"), xdg.home) },
    repos: parsed.repos.map((repo) => ({
      ...repo,
      primary_dir: expandHome(repo.primary_dir, xdg.home),
      ...(repo.worktree_dir ? { worktree_dir: expandHome(repo.worktree_dir, xdg.home) } : {}),
    })),
  };
  return {
    config,
    sources: computeSources(config, input.layers, fromEnv.applied),
    secrets: [...new Set([...collectSecrets(...input.layers.map((l) => l.value), fromEnv.value), ...envSecrets(input.env)])],
  };
}
