import { gitConfigVars } from "../core/git-config.ts";
import type { Env } from "../core/paths.ts";

/*
 * The environment of a guarded session's shell (OpenCode's `shell.env` hook): one in which no push
 * can reach a remote and no forge token is there to use.
 *
 * OpenCode 1.18 merges the hook's output over its own environment (`{ ...process.env, ...hook }`
 * in the bash tool), so a variable can be overridden but not removed: tokens are blanked (""),
 * which every tool reading them treats as unset.
 *
 * Git reads extra configuration from GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n
 * (git-config(1), ENVIRONMENT). `url.<base>.pushInsteadOf` with an EMPTY prefix matches every
 * push URL (git prefix-matches the URL string, and "" is a prefix of everything), so every push
 * (https, ssh, git@, file://, absolute and relative paths, a URL typed on the command line) is sent
 * to a path that does not exist. Git does not apply pushInsteadOf to an explicit
 * `remote.<name>.pushurl`: that spelling, `-c` overrides and a script that unsets these variables
 * are the command layer's and the pre-push check's to catch (docs/security.md).
 */

/** Where every push of a guarded session goes: no such repository, and the path says why. */
export const BLOCKED_PUSH_URL = "/otto-blocks-pushes-from-sessions/otto-pushes-for-you-after-its-checks/";

/** Forge tokens the shells of guarded sessions never see. */
export const TOKEN_VARIABLES = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "OTTO_ADO_PAT",
  "SYSTEM_ACCESSTOKEN",
  "AZURE_DEVOPS_EXT_PAT",
] as const;

/**
 * The basic-auth credentials of OpenCode's own server (the only variables OpenCode 1.18 reads for
 * it): with them a session could create sessions otto does not guard. The detached watcher's
 * server always has a password (src/pr/watch/server-auth.ts), and it is in that server's
 * environment, which the bash tool passes on.
 */
export const SERVER_AUTH_VARIABLES = ["OPENCODE_SERVER_PASSWORD", "OPENCODE_SERVER_USERNAME"] as const;

/** Config entries git reads from the environment for a guarded session. */
const GIT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  [`url.${BLOCKED_PUSH_URL}.pushInsteadOf`, ""],
  // An empty value clears the list of helpers inherited from the user's config.
  ["credential.helper", ""],
  ["core.askPass", "false"],
];

export interface PushEnvInput {
  /** The environment the shell would otherwise get (OpenCode's own). */
  env: Env;
  /** Token values from otto's config: any variable holding one is blanked too. */
  secrets?: readonly string[];
  /** An empty directory: the GitHub and Azure CLIs find no stored login there. */
  emptyConfigDir?: string;
}

/** Every variable otto sets in a guarded shell; a command that changes one is refused. */
export function protectedVariables(): string[] {
  return [
    ...Object.keys(pushBlockingEnv({ env: {} })),
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_SSH",
    "GIT_EXEC_PATH",
  ];
}

/** What the `shell.env` hook adds for a guarded session (merged over OpenCode's environment). */
export function pushBlockingEnv(input: PushEnvInput): Record<string, string> {
  // Otto's entries alone, from 0: the user's own (an `http.extraheader` with a token, say) stay
  // outside. Their variables are blanked; the sandbox passes only the first GIT_CONFIG_COUNT.
  const out: Record<string, string> = {};
  for (const name of Object.keys(input.env)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) out[name] = "";
  Object.assign(out, gitConfigVars({}, GIT_CONFIG));
  out.GIT_TERMINAL_PROMPT = "0";
  out.GCM_INTERACTIVE = "never";
  out.GIT_ASKPASS = "false";
  out.SSH_ASKPASS = "false";
  out.SSH_ASKPASS_REQUIRE = "never";
  // GIT_SSH_COMMAND wins over core.sshCommand and GIT_SSH; no agent socket means no agent's keys.
  out.GIT_SSH_COMMAND = "false";
  out.SSH_AUTH_SOCK = "";
  if (input.emptyConfigDir) {
    out.GH_CONFIG_DIR = input.emptyConfigDir;
    out.AZURE_CONFIG_DIR = input.emptyConfigDir;
  }
  for (const name of TOKEN_VARIABLES) out[name] = "";
  for (const name of SERVER_AUTH_VARIABLES) out[name] = "";
  const secrets = (input.secrets ?? []).filter((s) => s.length >= 8);
  for (const [name, value] of Object.entries(input.env)) {
    if (value && secrets.some((secret) => value.includes(secret))) out[name] = "";
  }
  return out;
}

/**
 * A whole environment for code of otto's work that runs outside a session's shell (a check, a
 * hook): the user's, with what the `shell.env` hook would set laid over it.
 */
export function guardedEnvironment(env: Env, secrets: readonly string[] = [], emptyConfigDir?: string): Record<string, string | undefined> {
  return { ...env, ...pushBlockingEnv({ env, secrets, ...(emptyConfigDir ? { emptyConfigDir } : {}) }) };
}
