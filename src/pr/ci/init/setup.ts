import type { Pins } from "./pins.ts";

/*
 * The shell both CI templates share: install the pinned OpenCode and otto with npm, write the
 * OpenCode and otto configuration of the job's user, and give otto's own git a credential helper.
 *
 * Why a helper and not the checkout's stored credentials: actions/checkout (persist-credentials)
 * and Azure's persistCredentials write the token into the repository's .git/config, which every
 * session otto runs can read. The helper lives in the global git config and holds no secret: it
 * reads the token variable when git asks. Otto's own git has that variable (it pushes the fix);
 * a session's shell has it blanked and its credential helpers cleared (docs/security.md), and so
 * do the project's checks.
 */

export interface ModelSetup {
  /** The model OpenCode runs the command with (`model` in opencode.json): models.primary, else the current one. */
  model: string;
  /** otto's `models` block for the job (only the roles that are set here). */
  models: Record<string, string | string[]>;
}

/** JSON on one line, as a YAML double-quoted scalar (JSON strings are valid YAML). */
export const yamlString = (value: string): string => JSON.stringify(value);

export function opencodeConfig(setup: ModelSetup): string {
  return JSON.stringify({ autoupdate: false, share: "disabled", model: setup.model });
}

/**
 * `sandbox: "required"`: in CI the sessions' commands run a PR's code next to the job's tokens, so
 * otto refuses to work unboxed rather than falling back to its other guards alone.
 */
export const ottoConfig = (setup: ModelSetup): string => JSON.stringify({ models: setup.models, sandbox: "required" });

/**
 * The sandbox's install: bubblewrap, and on Ubuntu 24.04 images the user namespaces AppArmor
 * restricts for unprivileged programs (the sysctl is missing on older images, hence `|| true`).
 */
export const SANDBOX_LINES = [
  "sudo apt-get update -qq",
  "sudo apt-get install -y -qq --no-install-recommends bubblewrap",
  "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true",
];

export const installLine = (pins: Pins): string =>
  `npm install --global --no-audit --no-fund opencode-ai@${pins.opencode} opencode-otto@${pins.otto}`;

/**
 * Lines of the configure step. `$OPENCODE_CONFIG_JSON` and `$OTTO_CONFIG_JSON` come from the
 * step's env (literal JSON, never expanded by the shell); jq adds the plugin's installed path.
 * `helperUrl` is the URL prefix the credential helper answers for, `token` the shell word it answers
 * with (read when git asks), `identity` the lines that set git's author and committer.
 */
export function configureLines(input: { helperUrl: string; token: string; user: string; identity: readonly string[] }): string[] {
  const helper = `!f() { test "$1" = get && echo username=${input.user} && echo "password=${input.token}"; }; f`;
  return [
    `mkdir -p "$HOME/.config/opencode" "$HOME/.config/otto"`,
    // Backticks, not $(…): Azure reads "$(name)" in a script as one of its macros.
    `jq --arg plugin "file://\`npm root --global\`/opencode-otto" '.plugin = [$plugin]' <<<"$OPENCODE_CONFIG_JSON" > "$HOME/.config/opencode/opencode.json"`,
    `printf '%s\\n' "$OTTO_CONFIG_JSON" > "$HOME/.config/otto/otto.jsonc"`,
    `git config --global credential.${input.helperUrl}.helper '${helper}'`,
    ...input.identity,
  ];
}

/** Indents a block of lines for a YAML literal block scalar. */
export const indent = (lines: readonly string[], spaces: number): string => lines.map((l) => `${" ".repeat(spaces)}${l}`).join("\n");
