/*
 * CI logs run to megabytes; the analysis session only needs the failures. Cut them in code first
 * (pure): the lines that look like errors, with some context, plus the end of the log (runners
 * print the failing step and its exit code last), capped in size.
 */

export interface TrimOptions {
  /** Lines kept before and after each error line. */
  context?: number;
  /** Lines always kept from the end of the log. */
  tail?: number;
  /** Upper bound of the result, in characters. */
  maxChars?: number;
}

/** 40 KB per log: a few pages for the model, many times what a root error needs. */
export const DEFAULT_MAX_CHARS = 40_000;
const DEFAULT_CONTEXT = 5;
const DEFAULT_TAIL = 40;

// Failure markers of common runners, compilers and test tools (the prompt's list, as code).
const ERROR_LINE =
  /\b(error|errors|failed|failure|failing|fatal|panic|panicked|exception|traceback|assert(ion)?error)\b|##\[error\]|npm ERR!|\bFAIL\b|exit(ed)? (with )?(code|status) [1-9]|✗|✖|\S+\.\w+:\d+:\d+/i;
// GitHub Actions prefixes every line with an ISO timestamp; ANSI colours are noise too.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z ?/;
// eslint-disable-next-line no-control-regex -- ANSI escape sequences start with ESC.
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

export function cleanLine(line: string): string {
  return line.replace(ANSI, "").replace(TIMESTAMP, "").replace(/\r$/, "");
}

/** Line indexes to keep: windows around error lines and the tail, merged, in order. */
export function keptRanges(lines: readonly string[], context: number, tail: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const add = (start: number, end: number): void => {
    const s = Math.max(0, start);
    const e = Math.min(lines.length - 1, end);
    if (e < s) return;
    const last = ranges[ranges.length - 1];
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e);
    else ranges.push([s, e]);
  };
  lines.forEach((line, i) => {
    if (ERROR_LINE.test(line)) add(i - context, i + context);
  });
  add(lines.length - tail, lines.length - 1);
  return ranges;
}

/** The trimmed log: kept ranges joined by "… N lines skipped …", at most `maxChars` long. */
export function trimLog(text: string, options: TrimOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const lines = text.split("\n").map(cleanLine);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const parts: string[] = [];
  let previous = -1;
  for (const [start, end] of keptRanges(lines, options.context ?? DEFAULT_CONTEXT, options.tail ?? DEFAULT_TAIL)) {
    if (start > previous + 1) parts.push(`… ${start - previous - 1} lines skipped …`);
    parts.push(...lines.slice(start, end + 1));
    previous = end;
  }
  return capChars(parts.join("\n"), maxChars);
}

/**
 * Keeps the start (the first error is usually the root one) and the end (the step that failed),
 * cut at line boundaries.
 */
export function capChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const headBudget = Math.floor(maxChars * 0.6);
  const tailBudget = maxChars - headBudget - 60;
  const head = text.slice(0, headBudget);
  const tail = text.slice(text.length - Math.max(0, tailBudget));
  const headCut = head.lastIndexOf("\n") > 0 ? head.slice(0, head.lastIndexOf("\n")) : head;
  const tailCut = tail.indexOf("\n") >= 0 ? tail.slice(tail.indexOf("\n") + 1) : tail;
  const cut = text.length - headCut.length - tailCut.length;
  return `${headCut}\n… ${cut} characters cut …\n${tailCut}`;
}
