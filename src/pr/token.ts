import type { BackendDeps } from "./backend.ts";

/** How long a token CLI (gh, az) may take before otto carries on without it. */
const CLI_TIMEOUT_MS = 10_000;

/** stdout of a token CLI when it exists and succeeds; undefined otherwise (never throws). */
export async function cliToken(deps: Pick<BackendDeps, "exec" | "log">, file: string, args: string[]): Promise<string | undefined> {
  try {
    const result = await deps.exec(file, args, { timeoutMs: CLI_TIMEOUT_MS });
    const token = result.stdout.trim();
    return result.exitCode === 0 && token !== "" ? token : undefined;
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
