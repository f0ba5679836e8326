import type { PluginInput } from "@opencode-ai/plugin";
// Direct imports, not barrels: the plugin builds its runtime at load, and load time counts.
import { EventBus } from "./core/events.ts";
import { createLogger } from "./core/log.ts";
import type { Env } from "./core/paths.ts";
import type { OpencodeClient, RuntimeBase } from "./core/runtime-types.ts";
import { KnownSecrets, envSecrets } from "./core/secrets.ts";
import { appendLedger, ledgerFile } from "./cost/ledger.ts";
import { Meter } from "./cost/meter.ts";
import { priceLookup } from "./cost/prices.ts";
import { SessionGuard } from "./guard/session-guard.ts";
import { createSessionRunner, type SessionRunner } from "./session/runner.ts";
import { SessionWrites } from "./session/writes.ts";
import { StableSystems } from "./session/stable-system.ts";

// The types live in core so the floors below the runtime can name them; re-exported for the floors above.
export type { OpencodeClient, RuntimeBase };

/** What one plugin instance shares with every tool and background job: no module-level state. */
export interface Runtime extends RuntimeBase {
  /** Every child session of this plugin instance goes through this runner (one concurrency limit). */
  sessions: SessionRunner;
  /** Otto's sessions (by id and by agent) and the hooks that keep them from pushing (src/guard). */
  guard: SessionGuard;
  /** Charges otto's sessions' calls to their accounts; holds a call whose budget is spent. */
  meter: Meter;
}

/**
 * The whole runtime, built at load: a watcher started by `opencode serve` with OTTO_WATCH=1 never
 * sees a tool call, and its fix and comment flows need the session runner as much as a command
 * does. The runner loads its session code on the first child session, so this stays cheap.
 */
export function createRuntime(
  input: Pick<PluginInput, "client" | "directory" | "worktree"> & Partial<Pick<PluginInput, "serverUrl">>,
  env: Env = process.env,
): Runtime {
  const events = new EventBus();
  const secrets = new KnownSecrets(envSecrets(env));
  const log = createLogger(input.client, () => secrets.values());
  const base: RuntimeBase = {
    client: input.client,
    directory: input.directory,
    worktree: input.worktree,
    events,
    log,
    env,
    once: new Set<string>(),
    secrets,
  };
  const guard = new SessionGuard({
    directory: input.directory,
    env,
    log,
    secrets: () => secrets.values(),
    ...(input.serverUrl ? { serverUrl: input.serverUrl.toString() } : {}),
    abort: (id) => input.client.session.abort({ path: { id }, query: { directory: input.directory } }),
  });
  const ledger = ledgerFile(env);
  const meter = new Meter({ priced: priceLookup(input.client, input.directory), record: (entries) => appendLedger(ledger, entries), log });
  events.on((event) => meter.onEvent(event));
  // What otto's watched sessions' tools changed, fed by the tool hooks (src/index.ts), read through the runner.
  const writes = new SessionWrites();
  const stable = new StableSystems();
  return {
    ...base,
    guard,
    meter,
    sessions: createSessionRunner(base, {
      onSession: (id) => guard.track(id),
      stopReason: (id) => guard.stopReason(id),
      meter,
      writes,
      stable,
    }),
  };
}
