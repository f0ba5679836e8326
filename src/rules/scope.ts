import type { Rule } from "./schema.ts";

/*
 * Which rules apply to which files. A scope is a list of globs relative to the repository root:
 * `**` any number of folders, `*` and `?` within one path segment, `{a,b}` either. A glob without a
 * `/` matches a file's name in any folder (`*.sql`), as in .gitignore.
 */

const cache = new Map<string, RegExp>();

function escape(c: string): string {
  return c.replace(/[.+^$()|[\]\\]/g, "\\$&");
}

/** A scope glob as an anchored regex over a `/`-separated path. */
export function globRegex(glob: string): RegExp {
  const cached = cache.get(glob);
  if (cached) return cached;
  const source = glob.includes("/") ? glob.replace(/^\.\//, "") : `**/${glob}`;
  let body = "";
  let braces = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? "";
    if (c === "*" && source[i + 1] === "*") {
      // `**/` is zero or more folders; a trailing `**` is anything below.
      if (source[i + 2] === "/") {
        body += "(?:.*/)?";
        i += 2;
      } else {
        body += ".*";
        i += 1;
      }
    } else if (c === "*") body += "[^/]*";
    else if (c === "?") body += "[^/]";
    else if (c === "{") {
      braces++;
      body += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      body += ")";
    } else if (c === "," && braces > 0) body += "|";
    else body += escape(c);
  }
  // An unclosed brace is a literal mistake of the writer; close it so the regex stays valid.
  body += ")".repeat(braces);
  const regex = new RegExp(`^${body}$`);
  cache.set(glob, regex);
  return regex;
}

function normalize(file: string): string {
  return file.replace(/\\/g, "/").replace(/^\.\//, "").replace(/^\/+/, "");
}

/** True when the scope takes in the whole repository, whatever the files. */
export function isWholeRepo(rule: Pick<Rule, "scope">): boolean {
  return rule.scope.some((glob) => glob === "**" || glob === "**/*");
}

/** True when one of the rule's globs matches one of the files. */
export function ruleMatches(rule: Pick<Rule, "scope">, files: readonly string[]): boolean {
  if (isWholeRepo(rule)) return true;
  return files.some((file) => rule.scope.some((glob) => globRegex(glob).test(normalize(file))));
}

/** Work whose files are not known yet (a spec's design and tasks): every accepted rule, each with its scope. */
export const ALL_FILES = "all";

/**
 * The accepted rules that apply to work touching `files` (paths relative to the repository root):
 * a rule scoped to the whole repository always, the others when one of the files is in scope.
 */
export function rulesInScope(rules: readonly Rule[], files: readonly string[] | typeof ALL_FILES): Rule[] {
  return rules.filter((rule) => rule.status === "accepted" && (files === ALL_FILES || ruleMatches(rule, files)));
}
