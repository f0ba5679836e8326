import type { BackendDeps } from "./backend.ts";

/** How long a token CLI (gh, az) may take before otto carries on without it. */
const CLI_TIMEOUT_MS = 10_000;

/**
 * stdout of a token CLI when it exists and succeeds; undefined otherwise (never throws). The token
 * joins deps.secrets, so it is redacted like the configured ones from then on.
 */
export async function cliToken(
  deps: Pick<BackendDeps, "exec" | "log" | "secrets">,
  file: string,
  args: string[],
): Promise<string | undefined> {
  try {
    const result = await deps.exec(file, args, { timeoutMs: CLI_TIMEOUT_MS });
    const token = result.stdout.trim();
    if (result.exitCode !== 0 || token === "") return undefined;
    if (deps.secrets && !deps.secrets.includes(token)) deps.secrets.push(token);
    return token;
  } catch (error) {
    deps.log(`${file} could not provide a token`, { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

/** Calls `load` once, on first use; a failure is not cached, so the next call tries again. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= load().catch((error: unknown) => {
      value = undefined;
      throw error;
    });
    return value;
  };
}
