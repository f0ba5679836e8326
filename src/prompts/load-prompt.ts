import fs from "node:fs";
import path from "node:path";
import { OttoError, assetPath, builtinDir, xdgPaths, type Env } from "../core/index.ts";
import { compileTemplate, type Template } from "./compile-template.ts";
import { isPromptName, PROMPT_NAMES, type PromptName } from "./names.ts";
import { parsePromptFile, parsePromptMeta, type PromptMeta } from "./parse-prompt-file.ts";

export interface PromptOptions {
  /** Where $XDG_CONFIG_HOME / $HOME come from (tests isolate the user's override folder). Default: process.env. */
  env?: Env;
}

/** A prompt as otto will use it: the user's override when there is one, else the builtin. */
export interface LoadedPrompt {
  name: PromptName;
  source: "builtin" | "user";
  /** Absolute path of the file the template came from. */
  file: string;
  /** The template text, frontmatter removed. */
  body: string;
  /** The builtin's frontmatter: the variable contract holds for overrides too. */
  meta: PromptMeta;
}

interface Compiled extends LoadedPrompt {
  template: Template;
}

/** `$XDG_CONFIG_HOME/otto/prompts`: where a user's override files live. */
export function userPromptDir(env: Env = process.env): string {
  return path.join(xdgPaths(env).ottoConfigDir, "prompts");
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new OttoError("prompt_read", `Cannot read prompt file ${file}: ${(error as Error).message}`, `Check the permissions of ${file}.`, {
      cause: error,
    });
  }
}

function checkName(name: string): PromptName {
  // assetPath first: it is the one place that refuses names escaping the folder (../x, /etc/passwd).
  assetPath(builtinDir("prompts"), name);
  if (!isPromptName(name)) {
    throw new OttoError("prompt_unknown", `There is no prompt named '${name}'.`, `Prompt names: ${PROMPT_NAMES.join(", ")}.`);
  }
  return name;
}

// Builtin prompts are files shipped with the package and never change while the process runs,
// so compiling each once per process is safe to share between plugin instances. Overrides are
// not cached: a user editing ~/.config/otto/prompts/x.md sees the change on the next call.
const builtinCache = new Map<PromptName, Compiled>();

function loadBuiltin(name: PromptName): Compiled {
  const cached = builtinCache.get(name);
  if (cached) return cached;
  const file = assetPath(builtinDir("prompts"), name);
  const text = readIfExists(file);
  if (text === undefined) {
    throw new OttoError("prompt_missing", `otto's builtin prompt file is missing: ${file}`, "Reinstall otto; this file ships with it.");
  }
  const parsed = parsePromptFile(text, file);
  const meta = parsePromptMeta(parsed.data, file);
  const template = compileTemplate(parsed.content, {
    name,
    file,
    source: "builtin",
    lineOffset: parsed.lineOffset,
    known: [...meta.variables, ...meta.optional],
  });
  const compiled: Compiled = { name, source: "builtin", file, body: parsed.content.trim(), meta, template };
  builtinCache.set(name, compiled);
  return compiled;
}

/** Loads and compiles the prompt otto will use for `name` (override first, then builtin). */
export function compilePrompt(name: string, options: PromptOptions = {}): Compiled {
  const checked = checkName(name);
  const builtin = loadBuiltin(checked);
  const file = assetPath(userPromptDir(options.env), checked);
  const text = readIfExists(file);
  if (text === undefined) return builtin;
  const parsed = parsePromptFile(text, file);
  const template = compileTemplate(parsed.content, {
    name: checked,
    file,
    source: "user",
    lineOffset: parsed.lineOffset,
    known: [...builtin.meta.variables, ...builtin.meta.optional],
  });
  return { name: checked, source: "user", file, body: parsed.content.trim(), meta: builtin.meta, template };
}

/**
 * Loads one prompt: `$XDG_CONFIG_HOME/otto/prompts/<name>.md` when it exists (its frontmatter is
 * optional and ignored), else the builtin `prompts/<name>.md`. Throws OttoError for unknown or
 * unsafe names and for template syntax errors (naming the file and line).
 */
export function loadPrompt(name: PromptName, options: PromptOptions = {}): LoadedPrompt {
  const { source, file, body, meta } = compilePrompt(name, options);
  return { name, source, file, body, meta };
}

/** Every prompt with where it currently comes from, for listing commands. */
export function listPrompts(options: PromptOptions = {}): Array<Pick<LoadedPrompt, "name" | "source" | "file"> & { description: string }> {
  return PROMPT_NAMES.map((name) => {
    const builtin = loadBuiltin(name);
    const override = assetPath(userPromptDir(options.env), name);
    const source = fs.existsSync(override) ? "user" : "builtin";
    return { name, source, file: source === "user" ? override : builtin.file, description: builtin.meta.description };
  });
}
