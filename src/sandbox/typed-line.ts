/*
 * Apart from wrap.ts so that the permission guard, built at plugin load, reads a launcher line
 * without loading the sandboxes.
 */

/** The line a session typed, from the launcher line sandboxedLine (wrap.ts) made of it (any other line as it is): for messages. */
export function typedLine(line: string): string {
  const match = /^'[^']*\/sandbox\/run-[0-9a-f]{16}\.sh' '((?:[^']|'\\'')*)'$/s.exec(line);
  return match?.[1] === undefined ? line : match[1].replace(/'\\''/g, "'");
}
