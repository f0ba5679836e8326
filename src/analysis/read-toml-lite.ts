/**
 * Just enough TOML for pyproject.toml and Cargo.toml: tables, array tables and `key = value`
 * entries whose values are kept as raw text (multi-line arrays and inline tables joined).
 * Tolerant by design: anything it does not understand is skipped, never thrown.
 */
export interface TomlTable {
  /** Header as written without brackets, e.g. `project.optional-dependencies`; `` for the root. */
  name: string;
  /** `[[name]]` */
  array: boolean;
  entries: Map<string, string>;
}

export function readTomlLite(text: string): TomlTable[] {
  const tables: TomlTable[] = [{ name: "", array: false, entries: new Map() }];
  let pending: { key: string; value: string } | undefined;
  for (const rawLine of text.split(/\r?\n/)) {
    const current = tables[tables.length - 1];
    if (!current) break;
    if (pending) {
      pending.value += `\n${stripComment(rawLine)}`;
      if (isComplete(pending.value)) {
        current.entries.set(pending.key, pending.value.trim());
        pending = undefined;
      }
      continue;
    }
    const line = stripComment(rawLine).trim();
    if (line === "") continue;
    const header = /^\[(\[)?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) {
      tables.push({ name: unquoteKey(header[2] ?? ""), array: header[1] === "[", entries: new Map() });
      continue;
    }
    const eq = indexOutsideQuotes(line, "=");
    if (eq <= 0) continue;
    const key = unquoteKey(line.slice(0, eq).trim());
    const value = line.slice(eq + 1).trim();
    if (isComplete(value)) current.entries.set(key, value);
    else pending = { key, value };
  }
  return tables;
}

export function findTable(tables: readonly TomlTable[], name: string): TomlTable | undefined {
  return tables.find((table) => table.name === name && !table.array);
}

/** The string a raw value holds, if it is a plain string. */
export function tomlString(raw: string | undefined): string | undefined {
  const match = raw === undefined ? null : /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)')$/.exec(raw.trim());
  return match ? (match[1] ?? match[2]) : undefined;
}

/** Every quoted string inside a raw value (array items, mostly). */
export function tomlStrings(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return [...raw.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? "");
}

/** A field of an inline table `{ version = "1", workspace = true }`, unquoted. */
export function inlineField(raw: string | undefined, key: string): string | undefined {
  if (raw === undefined) return undefined;
  const match = new RegExp(`(?:^|[{,\\s])${key}\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|'[^']*'|true|false)`).exec(raw);
  if (!match?.[1]) return undefined;
  return tomlString(match[1]) ?? match[1];
}

function unquoteKey(key: string): string {
  return key
    .split(".")
    .map((part) => part.trim().replace(/^["']|["']$/g, ""))
    .join(".");
}

function stripComment(line: string): string {
  const hash = indexOutsideQuotes(line, "#");
  return hash === -1 ? line : line.slice(0, hash);
}

function indexOutsideQuotes(line: string, char: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === char) return i;
  }
  return -1;
}

/** Brackets and braces balanced, and no open `"""` string. */
function isComplete(value: string): boolean {
  if ((value.match(/"""/g)?.length ?? 0) % 2 === 1) return false;
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
  }
  return depth <= 0;
}
