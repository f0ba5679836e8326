import type { Plugin } from "@opencode-ai/plugin";
import { EventBus, createLogger, type Runtime } from "./core/index.ts";
import { crewFor } from "./crew/index.ts";
import { registerOtto } from "./host/register.ts";
import { WATCH_ENV, watchControllerFor } from "./pr/index.ts";
import { SessionRunner } from "./session/index.ts";
import { buildTools } from "./tools/index.ts";

/**
 * The otto plugin. Loading must stay cheap and must never fail: configuration is read and
 * validated when a command runs, not here, so a broken otto.jsonc cannot stop OpenCode.
 * (Only this function is exported: OpenCode treats every exported function as a plugin.)
 */
export const OttoPlugin: Plugin = async (input) => {
  const events = new EventBus();
  const log = createLogger(input.client);
  const runtime: Runtime = {
    client: input.client,
    directory: input.directory,
    worktree: input.worktree,
    events,
    log,
    env: process.env,
    once: new Set(),
    sessions: new SessionRunner({ client: input.client, events, log, env: process.env }),
  };
  // A headless `opencode serve` started by `/otto-pr watch start --detach` (or the systemd unit)
  // carries OTTO_WATCH=1: only then does otto start its PR watcher on load. autostart never throws.
  if (process.env[WATCH_ENV] === "1") void watchControllerFor(runtime).autostart();
  // The crew reacts to session.idle / session.error (wake-ups, failures): it reads .otto/crew then, never at load.
  const crew = crewFor(runtime);
  events.on((event) => crew.onEvent(event));
  return {
    config: async (config) => {
      try {
        registerOtto(config);
      } catch (error) {
        runtime.log.log("error", "otto could not register its agents and commands", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    },
    event: async ({ event }) => {
      runtime.events.emit(event);
    },
    tool: buildTools(runtime),
    // Keeps otto's state (crew, unread messages, specs in progress) in the orchestrator's summary.
    "experimental.session.compacting": (input, output) => crew.compacting(input, output),
  };
};
