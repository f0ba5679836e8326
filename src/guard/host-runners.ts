import { GuardBlocked } from "./blocked.ts";

/*
 * The `config` hook's note: whether this OpenCode instance runs language servers or formatters.
 * They start outside any sandbox, on a file a tool read or wrote, programs the tree provides
 * (`node_modules/.bin/oxlint`, `node_modules/typescript/lib/tsserver.js`, a formatter's binary),
 * which a session's sandboxed shell can plant. The setting is the instance's, shared with the
 * user's own sessions in the same folder, so otto does not change it: a guarded session's tools
 * that would start one are refused while it is on, with the way out.
 */

/** Tools that write a file named by their arguments. */
export const FILE_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "multiedit", "patch", "apply_patch"]);
/** Tools after which OpenCode starts a language server (read, write, edit, patch, its `lsp` tool) or a formatter (write, edit, patch) on the file. */
const HOST_RUNNER_TOOLS: ReadonlySet<string> = new Set(["read", "lsp", ...FILE_TOOLS]);

/** The settings of the instance's config that are on, of `lsp` and `formatter`. */
export function hostRunnersOf(config: { lsp?: unknown; formatter?: unknown }): string[] {
  return (["lsp", "formatter"] as const).filter((key) => isOn(config[key]));
}

/** `lsp: true`, or an object of servers (OpenCode 1.18: off when absent or false). */
function isOn(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

/** The refusal of `tool` while the settings `on` (hostRunnersOf) run programs on what it touches; undefined when it may run. */
export function hostRunnerRefusal(tool: string, on: readonly string[]): GuardBlocked | undefined {
  if (on.length === 0 || !HOST_RUNNER_TOOLS.has(tool)) return undefined;
  const named = on.map((k) => `"${k}"`).join(" and ");
  return new GuardBlocked(
    `Otto blocked this: ${tool} while OpenCode's ${named} ${on.length > 1 ? "are" : "is"} on. OpenCode runs language servers and formatters ` +
      "outside otto's sandbox, on the file a tool touched, with programs from the project's tree (node_modules/.bin), which a session's shell can replace. " +
      `To run otto's sessions, set ${on.map((k) => `"${k}": false`).join(" and ")} in the OpenCode configuration of this folder (opencode.json) or your global one, and restart OpenCode.`,
  );
}
