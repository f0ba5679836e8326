import path from "node:path";
import { OttoError } from "../core/errors.ts";

const MAX_WORDS = 5;
const MAX_LENGTH = 50;
const FALLBACK = "spec";

/** Words that carry no meaning in a directory name. "add", "fix", "api" stay: they do. */
const STOP_WORDS = new Set(
  (
    "a an the to of for and or nor in on at by with from into onto as via per is are be been being " +
    "we i you our my your it its this that these those please should must can could would will " +
    "so some any all also just then than let lets us me make sure"
  ).split(" "),
);

/**
 * A directory name for a new spec: lowercase ASCII words of the prompt without stop words, at
 * most 5 words and 50 characters, `-2`, `-3` … appended when `existing` has it. Never empty.
 */
export function slugFromPrompt(prompt: string, existing: readonly string[] = []): string {
  const words = prompt
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // é → e once decomposed
    .toLowerCase()
    .replace(/['’]/g, "") // don't → dont, not don-t
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const meaningful = words.filter((w) => !STOP_WORDS.has(w));
  const base = fit(meaningful.length > 0 ? meaningful : words, MAX_LENGTH) || FALLBACK;

  const taken = new Set(existing);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${fit(base.split("-"), MAX_LENGTH - suffix.length) || FALLBACK}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Joins up to MAX_WORDS words with '-' without passing `max` characters (a long first word is cut). */
function fit(words: readonly string[], max: number): string {
  let slug = "";
  for (const word of words.slice(0, MAX_WORDS)) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > max) return slug || word.slice(0, max);
    slug = next;
  }
  return slug;
}

/**
 * Accepts a spec slug (or a prefix of one) only if it cannot leave `.otto/specs`: lowercase
 * letters, digits and '-', starting with a letter or digit. Returns it unchanged.
 */
export function assertSafeSlug(input: string): string {
  const fix = "Run /otto-spec list to see the spec slugs";
  const reject = (why: string): never => {
    throw new OttoError("invalid_slug", `Invalid spec slug '${input}': ${why}.`, fix);
  };
  if (input.trim() === "") reject("it is empty");
  if (path.isAbsolute(input) || path.win32.isAbsolute(input)) reject("it is an absolute path; pass the spec's name, like 'add-auth'");
  if (input.includes("..") || input.includes("/") || input.includes("\\")) {
    reject("it must be a name, not a path (no '/', '\\' or '..')");
  }
  if (input.startsWith(".")) reject("it must not start with '.'");
  if (!/^[a-z0-9][a-z0-9-]*$/.test(input)) {
    reject("use lowercase letters, digits and '-' only, starting with a letter or digit (like 'add-auth')");
  }
  return input;
}
