import type { PluginInput } from "@opencode-ai/plugin";
import type { EventBus } from "./events.ts";
import type { Logger } from "./log.ts";
import type { Env } from "./paths.ts";
import type { KnownSecrets } from "./secrets.ts";
import type { SessionRunner } from "../session/runner.ts";

export type OpencodeClient = PluginInput["client"];

/** What one plugin instance shares with every tool: no module-level state. */
export interface Runtime {
  client: OpencodeClient;
  /** The directory OpenCode was started in (the project). */
  directory: string;
  worktree: string;
  events: EventBus;
  log: Logger;
  env: Env;
  /** Things worth saying once per process (e.g. "models.secondary unset, using the session's model"). */
  once: Set<string>;
  /** The secrets known so far (environment, every loaded config): every sink redacts them. */
  secrets: KnownSecrets;
  /** Every child session of this plugin instance goes through this runner (one concurrency limit). */
  sessions: SessionRunner;
}
