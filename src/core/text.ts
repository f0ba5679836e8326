/*
 * Cutting text for summaries, tables and one-line notes. One home so every report cuts and
 * escapes the same way: a cut ends in "…", a table cell has no newline and no bare `|`.
 */

/** `text` cut to at most `max` characters, the last being "…" when cut. */
export function cut(text: string, max = Infinity): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…` : text;
}

/** `text` on one line (every run of whitespace one space), cut to `max`. */
export function oneLine(text: string, max = Infinity): string {
  return cut(text.replace(/\s+/g, " ").trim(), max);
}

/** The first non-empty line of `text`, trimmed, cut to `max`; "" when there is none. */
export function firstLine(text: string, max = Infinity): string {
  return cut(
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find((line) => line !== "") ?? "",
    max,
  );
}

/** A markdown table cell: one line, cut to `max`, `|` escaped. */
export function cell(text: string, max = Infinity): string {
  return oneLine(text, max).replace(/\|/g, "\\|");
}
