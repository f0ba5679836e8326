/**
 * The one error type otto throws on purpose. `code` is stable (tests and callers branch on it),
 * `message` says what was wrong, `fix` says what to do next (a command, a file to edit).
 * Only the tool boundary (src/tools) turns these into text.
 */
export class OttoError extends Error {
  override readonly name = "OttoError";
  constructor(
    readonly code: string,
    message: string,
    readonly fix?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isOttoError(value: unknown): value is OttoError {
  return value instanceof OttoError;
}

/** Text for a person or a model: what went wrong, then what to do. */
export function formatError(error: unknown): string {
  if (isOttoError(error)) {
    return error.fix ? `Error: ${error.message}\nNext step: ${error.fix}` : `Error: ${error.message}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Error: ${message}`;
}

/** A failure as text inside a sentence: formatError without its `Error: ` prefix (the fix line stays). */
export function errorText(error: unknown): string {
  return formatError(error).replace(/^Error: /, "");
}

/** A failure as one line for summaries and tasks.md: the first line of errorText. */
export function errorLine(error: unknown): string {
  return errorText(error).split("\n")[0] ?? "";
}
