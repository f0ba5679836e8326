/**
 * The `- **key**: value` field lines shared by tasks.md and questions.md, and the text rules for
 * their values. Models write `**id**:` and `**id:**`, `-`, `*` or `+` bullets, any capitalisation.
 */

export interface FieldLine {
  /** Everything before the value, kept so an edit can rewrite only the value. */
  prefix: string;
  indent: number;
  /** The key as written, e.g. `Depends on`. */
  rawKey: string;
  /** Normalized: lowercase, spaces and '-' as '_', e.g. `depends_on`. */
  key: string;
  value: string;
}

const FIELD_LINE = /^((\s*)[-*+][ \t]+\*\*[ \t]*([A-Za-z][A-Za-z0-9 _-]{0,40}?)[ \t]*(?::[ \t]*\*\*|\*\*[ \t]*:)[ \t]*)(.*)$/;

/** Keys of extra fields as otto stores them (snake_case), so they always read back as fields. */
export const EXTRA_KEY = /^[a-z][a-z0-9_]*$/;

export function matchFieldLine(line: string): FieldLine | undefined {
  const m = FIELD_LINE.exec(line);
  if (!m) return undefined;
  const [, prefix = "", indent = "", rawKey = "", value = ""] = m;
  return { prefix, indent: indent.length, rawKey, key: normalizeKey(rawKey), value: value.trim() };
}

export function normalizeKey(rawKey: string): string {
  return rawKey
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

/** Drops `<!-- ... -->` comments (an unclosed one runs to the end), as in `pending <!-- pending | running -->`. */
export function stripComments(value: string): string {
  return value.replace(/<!--[\s\S]*?(?:-->|$)/g, "").trim();
}

export function isBlank(line: string): boolean {
  return line.trim() === "";
}

export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Removes the indentation all non-blank lines share; blank lines become empty. */
export function dedent(lines: readonly string[]): string[] {
  const indents = lines.filter((l) => !isBlank(l)).map(indentOf);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((l) => (isBlank(l) ? "" : l.slice(cut)));
}

/**
 * The canonical form of a multi-line value: no blank lines around it, the first line trimmed, the
 * following lines without their shared indentation. Idempotent, and what parsing always returns,
 * so serialize → parse gives the same text back.
 */
export function normalizeProse(value: string): string {
  const lines = value.split(/\r?\n/);
  while (lines.length > 0 && isBlank(lines[0] ?? "")) lines.shift();
  while (lines.length > 0 && isBlank(lines[lines.length - 1] ?? "")) lines.pop();
  const [first, ...rest] = lines;
  if (first === undefined) return "";
  return [first.trim(), ...dedent(rest)].join("\n");
}

/**
 * Writes `- **key**: value`; following lines are indented two spaces (a markdown list item's
 * continuation), which also keeps them from ever being read as a field line or a heading.
 */
export function formatField(key: string, value: string): string[] {
  const [first = "", ...rest] = normalizeProse(value).split("\n");
  return [`- **${key}**: ${first}`.trimEnd(), ...rest.map((l) => (l === "" ? "" : `  ${l}`))];
}

/**
 * Reads a list value: `[]`, `none`, `[a, b]`, `["a", "b"]`, `a, b`, `` `a` `b` ``, or a bullet
 * list on the following lines. Quotes, backticks and brackets are dropped.
 */
export function parseList(first: string, rest: readonly string[], splitOnSpaces: boolean): string[] {
  const text = [first, ...rest.map((l) => l.trim().replace(/^[-*+][ \t]+/, ""))]
    .map(stripComments)
    .filter((l) => l !== "")
    .join(", ");
  if (/^(\[\s*\]|none|n\/a|-|—)$/i.test(text)) return [];
  const json = tryJsonArray(text);
  if (json) return json;
  // `a.ts` and `b.ts`: take the backticked names, unless there is other text between them.
  const ticked = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
  const between = text.replace(/`[^`]+`/g, "").replace(/\band\b|[\s,[\]]/g, "");
  const items = ticked.length > 0 && between === "" ? ticked : text.replace(/^\[|\]$/g, "").split(splitOnSpaces ? /[,\s]+/ : /,/);
  return items
    .map((s) =>
      s
        .trim()
        .replace(/^["'`]+|["'`]+$/g, "")
        .trim(),
    )
    .filter((s) => s !== "" && !/^none$/i.test(s));
}

function tryJsonArray(text: string): string[] | undefined {
  // Only a `["…` can be a JSON array of strings (`[]` is read before). Checking first keeps the
  // common `[task-001, task-002]` from throwing: a SyntaxError costs ~1 ms (stack capture, more
  // with source maps), most of a parse of tasks.md.
  if (!/^\[\s*"/.test(text)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
      return value.map((v) => v.trim()).filter((v) => v !== "");
    }
  } catch {
    // Not JSON (e.g. `[task-001, task-002]`): read as a bare list.
  }
  return undefined;
}
