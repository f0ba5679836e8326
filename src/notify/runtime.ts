import { loadConfig, type Config, type LoadedConfig } from "../config/index.ts";
import { formatError } from "../core/index.ts";
import { runProcess } from "../core/run.ts";
import type { Runtime } from "../runtime.ts";
import { createNotifier } from "./notifier.ts";
import type { Notify, NotifyEvent, NotifyReport } from "./types.ts";

/** Webhooks answer in well under this; a slow one must not hold up a watcher cycle. */
const WEBHOOK_TIMEOUT_MS = 10_000;
const COMMAND_TIMEOUT_MS = 30_000;

/** The notifier of a loaded config, wired to the plugin's OpenCode client (toasts) and the real network. */
export function notifierFor(
  runtime: Pick<Runtime, "client" | "env">,
  loaded: Pick<LoadedConfig, "secrets"> & { config: Pick<Config, "notify"> },
): Notify {
  const { notify } = loaded.config;
  return createNotifier({
    webhooks: notify.webhooks,
    ...(notify.command ? { command: notify.command } : {}),
    ...(notify.toast
      ? {
          toast: async (title: string, message: string, variant: "success" | "warning" | "info") => {
            // No TUI attached (opencode run, serve) means nobody sees it; that is fine.
            await runtime.client.tui.showToast({ body: { title, message, variant } });
          },
        }
      : {}),
    runCommand: async (command, env) => {
      const result = await runProcess(command, [], { shell: true, env: { ...runtime.env, ...env }, timeoutMs: COMMAND_TIMEOUT_MS });
      return { exitCode: result.exitCode };
    },
    fetch: globalThis.fetch,
    now: () => new Date(),
    secrets: loaded.secrets,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
  });
}

/**
 * Loads the config of `directory` and sends one event (for callers without a loaded config, such as
 * the end of a spec run). Never throws: problems are logged and returned.
 */
export async function sendNotification(
  runtime: Pick<Runtime, "client" | "env" | "log">,
  directory: string,
  event: NotifyEvent,
): Promise<NotifyReport> {
  try {
    const loaded = await loadConfig({ directory, env: runtime.env, runtime });
    const report = await notifierFor(runtime, loaded)(event);
    for (const failure of report.failed) runtime.log.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
    return report;
  } catch (error) {
    const message = formatError(error);
    runtime.log.log("warn", "otto could not send a notification", { error: message });
    return { delivered: [], failed: [{ channel: "config", error: message }] };
  }
}
