import { loadConfig, modelRoles } from "../../../config/index.ts";
import type { Runtime } from "../../../runtime.ts";
import { formatModel, readSessionModel } from "../../../session/index.ts";
import { repoRoot } from "../../../workspace/index.ts";
import { backendDeps } from "../../context/context.ts";
import { createRegistry } from "../../context/registry.ts";
import { originUrl } from "../../remote.ts";
import { isLocalUrl, type ConfiguredModels } from "./models.ts";
import type { RemoteForges } from "./plan.ts";

export type CiInitRuntime = Pick<Runtime, "client" | "env" | "log"> & Partial<Pick<Runtime, "secrets" | "once">>;

export interface CiSetup {
  root: string;
  models: ConfiguredModels;
  currentModel: string | undefined;
  opencodeEnv: Map<string, string[]>;
  /** Providers whose base URL is on this machine (a local model server), with that URL. */
  localProviders: Map<string, string>;
  /** Which forge the checkout's origin is on, as otto's backends read it. */
  remote: RemoteForges;
  /** `pr.flakes.open_issue`: the GitHub job needs issues: write. */
  openIssues: boolean;
  /** `pr.flakes.rerun`: Azure's build identity needs "Queue builds". */
  rerun: boolean;
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
  const localProviders = new Map<string, string>();
  try {
    const result = await runtime.client.config.providers({ query: { directory } });
    for (const provider of result.data?.providers ?? []) {
      opencodeEnv.set(provider.id, [...(provider.env ?? [])]);
      const base = provider.options?.baseURL;
      if (typeof base === "string" && isLocalUrl(base)) localProviders.set(provider.id, base);
    }
  } catch (error) {
    runtime.log.log("warn", "ci init: OpenCode's provider list could not be read", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  const registry = createRegistry(backendDeps(runtime, loaded));
  const url = await originUrl(root);
  // A remote a backend cannot read (or settings it rejects) is simply not that forge's: ci init only says so.
  const on = (name: "github" | "ado"): boolean => {
    try {
      return url !== undefined && registry.get(name).repoOfRemote(url) !== undefined;
    } catch {
      return false;
    }
  };
  const remote: RemoteForges = { origin: url !== undefined, github: on("github"), azure: on("ado") };
  return {
    root,
    models: modelRoles(loaded.config),
    currentModel: session ? formatModel(session) : undefined,
    opencodeEnv,
    localProviders,
    remote,
    openIssues: loaded.config.pr.flakes.open_issue,
    rerun: loaded.config.pr.flakes.rerun,
  };
}
