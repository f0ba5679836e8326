import type { PluginInput } from "@opencode-ai/plugin";
import { redact } from "./redact.ts";

type Client = PluginInput["client"];
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Logs go to OpenCode's log (client.app.log), never stdout: stdout belongs to the host. */
export interface Logger {
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void;
}

export function createLogger(client: Client): Logger {
  return {
    log(level, message, extra) {
      // Fire and forget: logging must never block or crash a tool.
      client.app
        .log({ body: { service: "otto", level, message: redact(message), extra } })
        .catch(() => undefined);
    },
  };
}

export const silentLogger: Logger = { log: () => undefined };
