import fs from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import { applyEdits, modify, parse, type FormattingOptions, type ParseError } from "jsonc-parser";
import { OttoError, SCHEMA_URL, docsUrl, readTextIfExists, realTarget, withFileLock, writeFileAtomic } from "../core/index.ts";
import { acceptsValue, keyElsewhere, objectKeys, schemaAt } from "./introspect.ts";
import { formatKeyPath, getAtPath, parseKeyPath, type KeyPath } from "./keypath.ts";
import { JSONC, parseConfigText, type ParseOptions } from "./parse.ts";
import { configError, sameProblem } from "./problems.ts";
import { isSecretKey } from "./secrets.ts";
import { closest } from "./suggest.ts";

export interface SetPlan {
  /** The whole new file text. */
  text: string;
  key: string;
  value: unknown;
  /** The value the file had at the key (undefined when unset). */
  previous: unknown;
  changed: boolean;
}

export interface SetResult extends Omit<SetPlan, "text"> {
  file: string;
  /** The file did not exist before. */
  created: boolean;
}

function unknownKey(path: KeyPath): OttoError | undefined {
  for (let n = 1; n <= path.length; n++) {
    if (schemaAt(path.slice(0, n))) continue;
    const segment = String(path[n - 1]);
    const siblings = objectKeys(path.slice(0, n - 1));
    const near = closest(segment, siblings);
    const moved = near ? undefined : keyElsewhere(segment);
    const guess = near ? formatKeyPath([...path.slice(0, n - 1), near, ...path.slice(n)]) : moved;
    const where = n > 1 ? `under ${formatKeyPath(path.slice(0, n - 1))}` : "at the top level";
    return new OttoError(
      "config_unknown_key",
      `Unknown config key '${formatKeyPath(path)}'.${guess ? ` Did you mean '${guess}'?` : ""}`,
      siblings.length
        ? `Keys ${where}: ${siblings.join(", ")}. See ${docsUrl("configuration.md")} for every key.`
        : `See ${docsUrl("configuration.md")} for every key.`,
    );
  }
  return undefined;
}

/** JSON when it parses (numbers, booleans, arrays, objects), else the text; digits-only secrets stay strings. */
export function coerceValue(path: KeyPath, raw: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (typeof parsed !== "string" && !acceptsValue(path, parsed) && acceptsValue(path, raw)) return raw;
  return parsed;
}

/** Keeps the file's own indentation and line endings. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  const tabs = indent.startsWith("\t");
  return { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

/** Pure: the new text of a config file with `keyPath` set, validated. Throws when the result would be invalid. */
export function planSet(text: string, options: ParseOptions, keyPath: string, rawValue: string): SetPlan {
  const path = parseKeyPath(keyPath);
  const unknown = unknownKey(path);
  if (unknown) throw unknown;
  return planEdit(text, options, path, coerceValue(path, rawValue));
}

/**
 * Pure: the new text with the value at `path` replaced, or removed when `value` is undefined; an
 * array index one past the end appends. Comments and formatting elsewhere are kept; the result is
 * validated like planSet's (only new problems are refused).
 */
export function planEdit(text: string, options: ParseOptions, path: KeyPath, value: unknown): SetPlan {
  const key = formatKeyPath(path);
  const errors: ParseError[] = [];
  const current: unknown = parse(text, errors, JSONC);
  const before = parseConfigText(text, options);
  if (errors.length > 0) throw configError(before.problems, `Cannot edit ${options.file}: fix its JSONC syntax first:`);
  const previous = getAtPath(current, path);
  if (value === undefined && previous === undefined) return { text, key, value, previous, changed: false };
  const formattingOptions = formattingOf(text);
  let next: string;
  try {
    next = applyEdits(text, modify(text, path, value, { formattingOptions }));
  } catch (error) {
    // jsonc-parser refuses to add a property to a value that is not an object.
    const message = error instanceof Error ? error.message : String(error);
    throw new OttoError(
      "config_key",
      `Cannot set ${key} in ${options.file}: ${message}`,
      `Set a parent key to an object instead, e.g. /otto-config set ${formatKeyPath(path.slice(0, -1))} '{}'.`,
    );
  }
  if (!next.endsWith("\n")) next += formattingOptions.eol;
  // Refuse only new problems: an already broken file can still be repaired one key at a time.
  const fresh = parseConfigText(next, options).problems.filter((p) => !before.problems.some((b) => sameProblem(b, p)));
  if (fresh.length > 0) {
    throw configError(
      fresh,
      `Refused to ${value === undefined ? "remove" : "set"} ${key} in ${options.file}; the file was not changed. The result would be invalid:`,
      // Nothing was written, so there is nothing to validate: the next step is the same command with a valid value.
      `Run /otto-config set ${key} <value> again with a value of the expected type (JSON lists and objects in single quotes).`,
    );
  }
  return { text: next, key, value, previous, changed: !isDeepStrictEqual(previous, value) };
}

/**
 * Sets one key in a config file in place (comments and formatting kept), creating the file and
 * its directory when absent. Validates before writing; writes atomically under a file lock.
 */
export async function setConfigValue(
  file: string,
  keyPath: string,
  rawValue: string,
  options: { scope?: ParseOptions["scope"] } = {},
): Promise<SetResult> {
  return editConfigFile(file, (text) => planSet(text, { file, scope: options.scope }, keyPath, rawValue));
}

/** The text a config file otto creates starts from: the `$schema` line, for editor completion. */
export function newConfigText(): string {
  return `{\n  "$schema": "${SCHEMA_URL}"\n}\n`;
}

/**
 * The read-plan-write cycle of every config edit, under the file's lock: `plan` gets the current
 * text (newConfigText() when the file does not exist) and returns what to write (see planSet, planEdit), so a
 * decision that depends on the file (e.g. the index to append at) sees what is really there.
 */
export async function editConfigFile(file: string, plan: (text: string) => SetPlan): Promise<SetResult> {
  const target = await realTarget(file);
  return withFileLock(target, async () => {
    const text = await readTextIfExists(target);
    const { text: next, ...rest } = plan(text ?? newConfigText());
    if (rest.changed) {
      const mode = text === undefined ? undefined : (await fs.stat(target)).mode & 0o777;
      // New files that hold a credential are readable by their owner only.
      await writeFileAtomic(target, next, mode ?? (isSecretKey(parseKeyPath(rest.key)) ? 0o600 : 0o644));
    }
    return { ...rest, file, created: text === undefined && rest.changed };
  });
}
