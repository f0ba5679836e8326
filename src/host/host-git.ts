// Direct import, not the core barrel: this runs at plugin load.
import { gitConfigVars } from "../core/git-config.ts";

/*
 * OpenCode runs git of its own in the user's process, outside otto's sandbox and with the user's
 * environment (forge tokens included): its snapshots (`git add`, `git diff` over the work tree)
 * after every step of every session. In a tree sandboxed code wrote, a nested repository's
 * `core.fsmonitor` would make that git run the planted program. Command-line configuration,
 * passed in the environment, outranks every repository's file and reaches every git those
 * commands start (a nested repository's status included), so otto adds it to the process's
 * environment once, at load: every git OpenCode starts afterwards inherits it. An fsmonitor is a
 * speed-up only; without it git reads the tree itself. Hooks stay as they are: the user's own
 * sessions commit with their hooks.
 */
const HOST_GIT: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["protocol.ext.allow", "never"],
];

/** Adds HOST_GIT to `env` as GIT_CONFIG_* entries (after any already there); a second call adds nothing. */
export function hardenHostGit(env: NodeJS.ProcessEnv = process.env): void {
  const n = Math.max(0, Number.parseInt(env.GIT_CONFIG_COUNT ?? "", 10) || 0);
  const present = new Set(Array.from({ length: n }, (_, i) => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`));
  Object.assign(
    env,
    gitConfigVars(
      env,
      HOST_GIT.filter(([key, value]) => !present.has(`${key}=${value}`)),
    ),
  );
}
