import { loadConfig, modelRoles } from "../../../config/index.ts";
import type { Runtime } from "../../../runtime.ts";
import { formatModel, readSessionModel } from "../../../session/index.ts";
import { repoRoot } from "../../../workspace/index.ts";
import type { ConfiguredModels } from "./models.ts";

export type CiInitRuntime = Pick<Runtime, "client" | "env" | "log"> & Partial<Pick<Runtime, "secrets" | "once">>;

export interface CiSetup {
  root: string;
  models: ConfiguredModels;
  currentModel: string | undefined;
  opencodeEnv: Map<string, string[]>;
}

/**
 * What `ci init` reads from this machine: the repository's top level, otto's configured models,
 * the model this command runs with, and the key variables OpenCode knows per provider. A failed
 * provider list is not fatal: otto's table of common providers stands in.
 */
export async function readCiSetup(runtime: CiInitRuntime, directory: string, sessionID: string): Promise<CiSetup> {
  const root = (await repoRoot(directory, { env: runtime.env })) ?? directory;
  const loaded = await loadConfig({ directory, env: runtime.env, runtime });
  const session = await readSessionModel({ client: runtime.client, sessionID, directory }).catch(() => undefined);
  const opencodeEnv = new Map<string, string[]>();
  try {
    const result = await runtime.client.config.providers({ query: { directory } });
    for (const provider of result.data?.providers ?? []) opencodeEnv.set(provider.id, [...(provider.env ?? [])]);
  } catch (error) {
    runtime.log.log("warn", "ci init: OpenCode's provider list could not be read", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return { root, models: modelRoles(loaded.config), currentModel: session ? formatModel(session) : undefined, opencodeEnv };
}
