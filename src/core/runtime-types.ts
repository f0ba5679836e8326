import type { PluginInput } from "@opencode-ai/plugin";
import type { EventBus } from "./events.ts";
import type { Logger } from "./log.ts";
import type { Env } from "./paths.ts";
import type { KnownSecrets } from "./secrets.ts";

/** OpenCode's SDK client, as the plugin receives it. */
export type OpencodeClient = PluginInput["client"];

/*
 * The services of one plugin instance that need nothing above core. The Runtime (src/runtime.ts)
 * adds the session runner and the guard, which are built from these: the floors below the runtime
 * (config, session, guard) take narrow picks of this type, never the Runtime itself.
 */
export interface RuntimeBase {
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
}
