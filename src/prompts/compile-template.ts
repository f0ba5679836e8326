import Handlebars from "handlebars";
import { OttoError } from "../core/index.ts";

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

// One isolated Handlebars environment, so otto's helpers never leak into (or collide with)
// another plugin's use of the global Handlebars instance.
const hb = Handlebars.create();

interface HelperOptions {
  loc?: { start: { line: number; column: number } };
}

/**
 * Helper parameters are not covered by strict mode (a missing `x` in `{{list x}}` arrives as
 * undefined), so the helpers enforce it themselves, with the template position.
 */
function present(helper: string, value: unknown, options: HelperOptions): void {
  if (value === undefined) {
    const at = options.loc ? ` - ${options.loc.start.line}:${options.loc.start.column}` : "";
    throw new Error(`"${helper}" was given a variable that is not defined${at}`);
  }
}

/** `{{list x}}`: an array as "- item" lines ("(none)" when empty); anything else as text. */
hb.registerHelper("list", (value: unknown, options: HelperOptions) => {
  present("list", value, options);
  if (Array.isArray(value)) {
    if (value.length === 0) return "(none)";
    return value.map((item) => `- ${typeof item === "string" ? item : JSON.stringify(item)}`).join("\n");
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.trim() === "" ? "(none)" : text;
});

/** `{{json x}}`: any value as pretty-printed JSON. */
hb.registerHelper("json", (value: unknown, options: HelperOptions) => {
  present("json", value, options);
  return JSON.stringify(value, null, 2);
});

function positionOf(error: unknown): { line?: number; column?: number } {
  const e = error as { lineNumber?: unknown; column?: unknown; message?: unknown };
  if (typeof e.lineNumber === "number") {
    return { line: e.lineNumber, column: typeof e.column === "number" ? e.column : undefined };
  }
  const message = typeof e.message === "string" ? e.message : "";
  const at = / - (\d+):(\d+)$/.exec(message) ?? /on line (\d+)/.exec(message);
  return at ? { line: Number(at[1]), column: at[2] === undefined ? undefined : Number(at[2]) } : {};
}

function where(origin: TemplateOrigin, error: unknown): string {
  const { line, column } = positionOf(error);
  if (line === undefined) return origin.file;
  return `${origin.file}:${line + origin.lineOffset}${column === undefined ? "" : `:${column + 1}`}`;
}

// The parser names tokens by their grammar names; these are the ones a template author meets.
const TOKENS: Record<string, string> = {
  EOF: "the template ends inside an unclosed {{…}} or {{#block}}",
  CLOSE: "unexpected '}}'",
  OPEN_ENDBLOCK: "a closing {{/…}} without its opening {{#…}}",
  INVALID: "an invalid character inside {{…}}",
};

function describeSyntaxError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const got = /got '([^']+)'$/.exec(message)?.[1];
  if (got) return TOKENS[got] ?? `unexpected ${got}`;
  // Handlebars' own compile errors end with " - line:column"; the position is reported separately.
  return message.replace(/ - \d+:\d+$/, "");
}

/** Parses and compiles a template; syntax errors name the file and line. */
export function compileTemplate(content: string, origin: TemplateOrigin): Template {
  let render: HandlebarsTemplateDelegate;
  try {
    // strict: a variable the caller did not pass throws instead of silently rendering as "".
    // noEscape: prompts are plain text, not HTML.
    // parse() reports syntax and block-mismatch errors now; compile() itself is lazy.
    render = hb.compile(hb.parse(content), { strict: true, noEscape: true });
  } catch (error) {
    throw syntaxError(origin, error);
  }
  return (vars) => {
    try {
      return render(vars);
    } catch (error) {
      throw renderError(origin, error);
    }
  };
}

function syntaxError(origin: TemplateOrigin, error: unknown): OttoError {
  const fix =
    origin.source === "user"
      ? `Fix the template syntax in ${origin.file} (Handlebars: {{name}}, {{#if name}}…{{/if}}), or delete the file to use otto's builtin '${origin.name}' prompt.`
      : "Reinstall otto; this prompt ships with it.";
  return new OttoError(
    "prompt_syntax",
    `Prompt '${origin.name}' has a template error at ${where(origin, error)}: ${describeSyntaxError(error)}`,
    fix,
    { cause: error },
  );
}

function renderError(origin: TemplateOrigin, error: unknown): OttoError {
  const message = error instanceof Error ? error.message : String(error);
  const undefinedVar = /^"([^"]+)" not defined in/.exec(message);
  const helperVar = /^"([^"]+)" was given a variable that is not defined/.exec(message);
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
