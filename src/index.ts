import type { Plugin } from "@opencode-ai/plugin";
import { EventBus, createLogger, type Runtime } from "./core/index.ts";
import { registerOtto } from "./host/register.ts";
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
  };
};
