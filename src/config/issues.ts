import type { Node } from "jsonc-parser";
import type { z } from "zod";
import { keyElsewhere, objectKeys } from "./introspect.ts";
import { formatKeyPath, getAtPath } from "./keypath.ts";
import { locatePath } from "./locate.ts";
import { describeValue, type ConfigProblem } from "./problems.ts";
import { isSecretKey } from "./secrets.ts";
import { closest } from "./suggest.ts";

export interface IssueContext {
  file: string;
  text: string;
  tree: Node | undefined;
  /** The parsed file, to show what was found at an issue's path. */
  value: unknown;
  /** Adds `--user` to the suggested /otto-config set command for the user file. */
  scope?: "user" | "repo";
}

type Path = Array<string | number>;

function toPath(path: readonly PropertyKey[]): Path {
  return path.filter((s): s is string | number => typeof s !== "symbol");
}

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "int" ? "a whole number" : `${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    case "invalid_value":
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const limit = small ? issue.minimum : issue.maximum;
      const op = issue.inclusive ? (small ? "at least" : "at most") : small ? "more than" : "less than";
      if (issue.origin === "array") return `an array with ${op} ${String(limit)} item${limit === 1 ? "" : "s"}`;
      if (issue.origin === "string") return `a string with ${op} ${String(limit)} characters`;
      return `a number ${op} ${String(limit)}`;
    }
    default:
      // Our schemas phrase custom messages as the expectation ("a duration like 30s ...").
      return issue.message;
  }
}

function setHint(key: string, ctx: IssueContext): string {
  const flag = ctx.scope === "user" ? " --user" : "";
  return ctx.scope ? ` or run /otto-config set ${key} <value>${flag}` : "";
}

function unknownKeyProblems(issue: z.core.$ZodIssueUnrecognizedKeys, ctx: IssueContext): ConfigProblem[] {
  const parent = toPath(issue.path);
  const siblings = objectKeys(parent);
  return issue.keys.map((key) => {
    const path = [...parent, key];
    const { line, column } = locatePath(ctx.text, ctx.tree, path, true);
    const near = closest(key, siblings);
    const elsewhere = near ? undefined : keyElsewhere(key);
    const where = parent.length ? `under ${formatKeyPath(parent)}` : "at the top level";
    const fix = near
      ? `Did you mean "${near}"? Rename the key at ${ctx.file}:${line}:${column}.`
      : elsewhere
        ? `Did you mean "${elsewhere}"? Move the key there.`
        : `Remove "${key}". Keys allowed ${where}: ${siblings.join(", ")}.`;
    return {
      file: ctx.file,
      line,
      column,
      key: formatKeyPath(path),
      expected: `a key allowed ${where}`,
      found: `unknown key "${key}"`,
      fix,
    };
  });
}

/** One zod issue as located problems (an unknown-keys issue becomes one problem per key). */
export function issueToProblems(issue: z.core.$ZodIssue, ctx: IssueContext): ConfigProblem[] {
  if (issue.code === "unrecognized_keys") return unknownKeyProblems(issue, ctx);
  const path = toPath(issue.path);
  const key = formatKeyPath(path);
  const { line, column } = locatePath(ctx.text, ctx.tree, path);
  const input = getAtPath(ctx.value, path);
  const expected = expectedOf(issue);
  if (input === undefined) {
    const fix = `Add "${String(path[path.length - 1])}" to ${formatKeyPath(path.slice(0, -1))} at ${ctx.file}:${line}:${column}.`;
    return [{ file: ctx.file, line, column, key, expected, found: "nothing (the key is required)", fix }];
  }
  // Never echo a credential, even a malformed one.
  const found = isSecretKey(path) && typeof input === "string" ? "a string (secret, not shown)" : describeValue(input);
  const fix = `Change ${key} to ${expected}: edit ${ctx.file}:${line}:${column}${setHint(key, ctx)}.`;
  return [{ file: ctx.file, line, column, key, expected, found, fix }];
}
