import type { Env, Logger } from "../core/index.ts";
import type { Account, Usage } from "../cost/index.ts";
import type { NotifyEvent } from "../notify/index.ts";
import type { PromptGates } from "./gate.ts";
import type { CrewHost } from "./host.ts";
import { crewPaths, type CrewPaths } from "./paths.ts";
import type { Now } from "./store.ts";

/** Everything crew code touches besides its files, passed in so tests can fake OpenCode and time. */
export interface CrewDeps {
  host: CrewHost;
  /** The process's prompt gates (gate.ts). */
  gates: PromptGates;
  log: Logger;
  /** For prompt overrides and git. */
  env: Env;
  now: Now;
  /** The configured notification (config.notify, webhooks and command) for a human escalation; never throws. */
  notify(root: string, event: NotifyEvent): Promise<void>;
  /** Waits between two looks at the crew (--wait). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** This process, and whether another one still runs (restart detection in reconcile.ts). */
  pid: number;
  isAlive(pid: number): boolean;
  /** The runtime's known secrets: redacted from messages and the crew's state. */
  secrets?: () => readonly string[];
  /** Charges a session's model calls to an account (the runtime's meter, src/cost); without it nothing is counted live. */
  meter?: { track(sessionID: string, account: Account): void };
  /** What a session's model calls used, from its messages (exact whichever process ran them). */
  spendOf?(sessionID: string, directory: string): Promise<Usage>;
}

/** One crew: its files and its dependencies. */
export interface Crew extends CrewDeps {
  paths: CrewPaths;
}

export function crewAt(root: string, deps: CrewDeps): Crew {
  return { ...deps, paths: crewPaths(root) };
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Whether this process is a one-shot `opencode run`, which exits at its session's first idle and
 * takes background agents with it (OpenCode's argv is ["bun", "/$bunfs/root/src/index.js", <subcommand>, …]).
 */
export function isOneShotRun(argv: readonly string[] = process.argv): boolean {
  return argv[2] === "run";
}
