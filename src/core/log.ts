import type { PluginInput } from "@opencode-ai/plugin";
import { redact, redactDeep } from "./redact.ts";

type Client = PluginInput["client"];
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Logs go to OpenCode's log (client.app.log), never stdout: stdout belongs to the host. */
export interface Logger {
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void;
}

/**
 * The message and every string of `extra` are redacted: token formats, and the values `secrets`
 * returns at the time of the call (the runtime's KnownSecrets grows as configs load).
 */
export function createLogger(client: Client, secrets: () => readonly string[] = () => []): Logger {
  return {
    log(level, message, extra) {
      const known = secrets();
      const body = { service: "otto", level, message: redact(message, known), ...(extra ? { extra: redactDeep(extra, known) } : {}) };
      // Fire and forget: logging must never block or crash a tool.
      client.app.log({ body }).catch(() => undefined);
    },
  };
}

export const silentLogger: Logger = { log: () => undefined };
