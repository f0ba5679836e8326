import { OttoError } from "../core/index.ts";
import { parseTemplate, renderTemplate } from "../prompts/index.ts";

/*
 * `branch_template` turns a worktree name into a branch name ("users/me/{{name}}" + "fix-auth" →
 * "users/me/fix-auth") and, for PR mapping, back. The prompts' template language, strict, without
 * helpers (src/prompts/template-engine.ts); Go's `{{.name}}` is accepted too.
 */

/** Names become a directory under worktree_dir and part of a ref: one safe path segment. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function assertWorktreeName(name: string): string {
  if (!NAME.test(name) || name.includes("..") || name.endsWith(".lock") || name.endsWith(".")) {
    throw new OttoError(
      "worktree_name",
      `'${name}' cannot be a worktree name: use letters, digits, '.', '-' and '_' (no '/', no '..').`,
      "Pick a name like fix-auth or issue-42.",
    );
  }
  return name;
}

function compile(template: string): (vars: { name: string }) => string {
  const source = template.replace(/\{\{\s*\.name\s*\}\}/g, "{{name}}");
  try {
    const program = parseTemplate(source, new Set());
    return (vars) => renderTemplate(program, vars, new Map());
  } catch (error) {
    throw templateError(template, error);
  }
}

function templateError(template: string, error: unknown): OttoError {
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return new OttoError(
    "branch_template",
    `branch_template '${template}' is not a valid template: ${message}`,
    "Use {{name}} for the worktree name, e.g. users/me/{{name}}; fix it with /otto-config set repos[<index>].branch_template 'users/me/{{name}}' --user",
  );
}

/** Rules of `git check-ref-format --branch` that a template can break. */
function assertBranchName(branch: string, template: string): string {
  // https://git-scm.com/docs/git-check-ref-format
  const control = [...branch].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  const bad =
    branch === "" ||
    control ||
    /[\s~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$|\.lock$|\.$|^-/.test(branch) ||
    branch.split("/").some((s) => s.startsWith("."));
  if (bad) {
    throw new OttoError(
      "branch_name",
      `branch_template '${template}' makes '${branch}', which is not a valid branch name.`,
      "Fix branch_template in the repo's config (otto's repos[].branch_template).",
    );
  }
  return branch;
}

/** The branch for a worktree name; without a template the branch is the name itself. */
export function renderBranchName(template: string | undefined, name: string): string {
  assertWorktreeName(name);
  if (template === undefined) return name;
  let branch: string;
  try {
    branch = compile(template)({ name });
  } catch (error) {
    throw error instanceof OttoError ? error : templateError(template, error);
  }
  return assertBranchName(branch.trim(), template);
}

const SENTINEL = "\u0000name\u0000";
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Pure: the template as an anchored regex whose first group is the name; undefined when it does not use {{name}}. */
export function templatePattern(template: string): RegExp | undefined {
  let rendered: string;
  try {
    rendered = compile(template)({ name: SENTINEL });
  } catch {
    return undefined;
  }
  const parts = rendered.trim().split(SENTINEL);
  if (parts.length < 2) return undefined;
  // The same name everywhere it appears: later uses are back-references to the first.
  const body = parts.map(escape).reduce((acc, part, i) => (i === 0 ? part : `${acc}${i === 1 ? "(.+?)" : "\\1"}${part}`), "");
  return new RegExp(`^${body}$`);
}

/** The name a branch was made from, or undefined when the branch does not follow the template. */
export function parseBranchName(template: string | undefined, branch: string): string | undefined {
  if (template === undefined) return branch;
  return templatePattern(template)?.exec(branch)?.[1];
}

/**
 * The worktree directory name for a branch (PR mapping): the name the template made it from, or,
 * for a branch that does not follow the template, the branch with unsafe characters as '-'.
 */
export function worktreeNameFor(template: string | undefined, branch: string): string {
  const parsed = parseBranchName(template, branch);
  if (parsed !== undefined && NAME.test(parsed) && !parsed.includes("..") && !parsed.endsWith(".lock")) return parsed;
  const safe = (parsed ?? branch)
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[^A-Za-z0-9]+/, "")
    .replace(/(\.lock|[.-])+$/, "");
  return safe === "" ? "branch" : safe;
}
