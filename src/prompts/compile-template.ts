import { docsUrl, OttoError } from "../core/index.ts";
import { parseTemplate, renderTemplate, TemplateError, type Helper, type Program } from "./template-engine.ts";

/** A compiled prompt: call it with the variables, get the prompt text. */
export type Template = (vars: Record<string, unknown>) => string;

/** Where a template came from, for error messages that point at the right file and line. */
export interface TemplateOrigin {
  name: string;
  file: string;
  source: "builtin" | "user";
  /** Lines of frontmatter above the template in `file`. */
  lineOffset: number;
  /** The variables otto passes to this prompt, listed in errors about unknown ones. */
  known: readonly string[];
}

/** Helpers available to every template (and to user overrides); documented in docs/prompts.md. */
export const HELPER_NAMES = ["list", "json"] as const;

const HELPERS = new Map<string, Helper>([
  /** `{{list x}}`: an array as "- item" lines ("(none)" when empty); anything else as text. */
  [
    "list",
    (value) => {
      if (Array.isArray(value)) {
        if (value.length === 0) return "(none)";
        return value.map((item) => `- ${typeof item === "string" ? item : JSON.stringify(item)}`).join("\n");
      }
      const text = typeof value === "string" ? value : JSON.stringify(value);
      return text.trim() === "" ? "(none)" : text;
    },
  ],
  /** `{{json x}}`: any value as pretty-printed JSON. */
  ["json", (value) => JSON.stringify(value, null, 2)],
]);
const HELPER_SET: ReadonlySet<string> = new Set(HELPER_NAMES);

function where(origin: TemplateOrigin, error: unknown): string {
  const position = error instanceof TemplateError ? error.position : undefined;
  if (!position) return origin.file;
  return `${origin.file}:${position.line + origin.lineOffset}:${position.column}`;
}

/** Parses and compiles a template; syntax errors name the file and line. */
export function compileTemplate(content: string, origin: TemplateOrigin): Template {
  let program: Program;
  try {
    program = parseTemplate(content, HELPER_SET);
  } catch (error) {
    throw syntaxError(origin, error);
  }
  return (vars) => {
    try {
      return renderTemplate(program, vars, HELPERS);
    } catch (error) {
      throw renderError(origin, error);
    }
  };
}

function syntaxError(origin: TemplateOrigin, error: unknown): OttoError {
  const fix =
    origin.source === "user"
      ? `Fix the template syntax in ${origin.file} ({{name}}, {{#if name}}…{{else}}…{{/if}}, {{list name}}; see ${docsUrl("prompts.md")}), or delete the file to use otto's builtin '${origin.name}' prompt.`
      : "Reinstall otto; this prompt ships with it.";
  return new OttoError(
    "prompt_syntax",
    `Prompt '${origin.name}' has a template error at ${where(origin, error)}: ${error instanceof Error ? error.message : String(error)}`,
    fix,
    { cause: error },
  );
}

function renderError(origin: TemplateOrigin, error: unknown): OttoError {
  const message = error instanceof Error ? error.message : String(error);
  const undefinedVar = error instanceof TemplateError && error.kind === "undefined_variable" ? [message, error.subject] : undefined;
  const helperVar = error instanceof TemplateError && error.kind === "undefined_helper_argument" ? [message, error.subject] : undefined;
  const known = origin.known.length ? origin.known.join(", ") : "(none)";
  const fix =
    origin.source === "user"
      ? `Edit ${origin.file}: otto passes only these variables to '${origin.name}': ${known}. Wrap optional ones in {{#if name}}…{{/if}}.`
      : `This is a bug in otto: the '${origin.name}' prompt and its caller disagree about variables.`;
  if (undefinedVar) {
    return new OttoError(
      "prompt_variable",
      `Prompt '${origin.name}' uses variable '${undefinedVar[1]}' at ${where(origin, error)}, but it was not passed.`,
      fix,
      { cause: error },
    );
  }
  if (helperVar) {
    return new OttoError(
      "prompt_variable",
      `Prompt '${origin.name}' calls {{${helperVar[1]} …}} with a variable that was not passed, at ${where(origin, error)}.`,
      fix,
      { cause: error },
    );
  }
  return new OttoError("prompt_render", `Prompt '${origin.name}' (${origin.file}) failed to render: ${message}`, fix, {
    cause: error,
  });
}
