import path from "node:path";
import { loadConfig, type LoadedConfig } from "../../config/index.ts";
import { OttoError, xdgPaths } from "../../core/index.ts";
import { runProcess } from "../../core/run.ts";
import type { Runtime } from "../../runtime.ts";
import { parseModel, type ModelRef } from "../../session/index.ts";
import { notifierFor, type Notify } from "../../notify/index.ts";
import type { BackendDeps } from "../backend.ts";
import { createRegistry, type BackendRegistry } from "./registry.ts";
import { createPrStore, type PrStore } from "../store/store.ts";

/** Everything a PR command or a watcher cycle needs, built from the plugin runtime and the config. */
export interface PrContext {
  loaded: LoadedConfig;
  store: PrStore;
  registry: BackendRegistry;
  notify: Notify;
  /** $XDG_DATA_HOME/otto */
  dataDir: string;
}

export type PrRuntime = Pick<Runtime, "client" | "env" | "log" | "directory" | "sessions"> & Partial<Pick<Runtime, "secrets">>;

/** 1 s: GitHub's Retry-After and Azure DevOps' are in seconds, and so is plugin-retry's backoff. */
const RETRY_BASE_MS = 1000;

export function backendDeps(runtime: Pick<PrRuntime, "env" | "log">, loaded: LoadedConfig): BackendDeps {
  return {
    config: loaded.config,
    env: runtime.env,
    fetch: globalThis.fetch,
    async exec(file, args, { timeoutMs }) {
      const result = await runProcess(file, args, { timeoutMs, env: runtime.env });
      // ENOENT: the CLI is not installed.
      return { exitCode: result.failed && result.exitCode === undefined ? undefined : result.exitCode, stdout: result.stdout };
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    retryBaseMs: RETRY_BASE_MS,
    log: (message, extra) => runtime.log.log("info", message, extra),
    secrets: loaded.secrets,
  };
}

export function prStoreDir(env: Runtime["env"]): string {
  return path.join(xdgPaths(env).ottoDataDir, "prs");
}

/** Loads the config of `directory` (default: where OpenCode runs) and wires the store, backends and notifier. */
export async function createPrContext(runtime: PrRuntime, directory = runtime.directory): Promise<PrContext> {
  const loaded = await loadConfig({ directory, env: runtime.env, runtime });
  return {
    loaded,
    store: createPrStore(prStoreDir(runtime.env), () => loaded.secrets),
    registry: createRegistry(backendDeps(runtime, loaded)),
    notify: notifierFor(runtime, loaded),
    dataDir: xdgPaths(runtime.env).ottoDataDir,
  };
}

/**
 * The watcher runs without an invoking session whose model it could borrow, so its flows need
 * models.primary. `job` says what for ("the fix flow", "answering review comments").
 */
export function watcherPrimary(
  primary: string | undefined,
  job: string,
  fix = "Set it: /otto-config set models.primary <provider/model>",
): ModelRef {
  if (!primary)
    throw new OttoError(
      "model_unset",
      `models.primary is not set, and the PR watcher has no session whose model it could use for ${job}.`,
      fix,
    );
  return parseModel(primary);
}
