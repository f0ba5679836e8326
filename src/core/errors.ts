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

/** Node's file-system errors a person fixes by giving otto somewhere it may write. */
const UNWRITABLE = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT"]);

/**
 * The next step for a file-system error Node raised (a home or XDG folder otto may not write, a
 * full disk): where it happened and where otto keeps its files. Undefined for anything else.
 */
function fileSystemFix(error: unknown): string | undefined {
  const { code, path } = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof code !== "string" || typeof path !== "string" || !UNWRITABLE.has(code)) return undefined;
  const what = code === "ENOSPC" || code === "EDQUOT" ? "free space on its disk" : "make it writable for the user running OpenCode";
  return `Otto could not write ${path}: ${what} (ls -ld on it and its folder shows who may). Otto keeps its files in $XDG_CONFIG_HOME, $XDG_DATA_HOME, $XDG_STATE_HOME and $XDG_CACHE_HOME (by default ~/.config, ~/.local/share, ~/.local/state and ~/.cache), which may point at folders that user can write. Then run the command again.`;
}

/** Text for a person or a model: what went wrong, then what to do. */
export function formatError(error: unknown): string {
  if (isOttoError(error)) {
    return error.fix ? `Error: ${error.message}\nNext step: ${error.fix}` : `Error: ${error.message}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const fix = fileSystemFix(error);
  return fix ? `Error: ${message}\nNext step: ${fix}` : `Error: ${message}`;
}

/** A failure as text inside a sentence: formatError without its `Error: ` prefix (the fix line stays). */
export function errorText(error: unknown): string {
  return formatError(error).replace(/^Error: /, "");
}

/** A failure as one line for summaries and tasks.md: the first line of errorText. */
export function errorLine(error: unknown): string {
  return errorText(error).split("\n")[0] ?? "";
}
