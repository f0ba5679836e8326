import type { Env } from "../core/index.ts";
import { loadConfig } from "../config/index.ts";
import type { SandboxAccess } from "../sandbox/index.ts";

/**
 * `sandbox_access` of the config that applies in `cwd` (a repository's file only when trusted),
 * for code otto runs there in the sandbox (a check, a git hook); the defaults when it cannot be read.
 */
export async function accessOf(cwd: string, env: Env): Promise<SandboxAccess | undefined> {
  try {
    return (await loadConfig({ directory: cwd, env })).config.sandbox_access;
  } catch {
    return undefined;
  }
}
