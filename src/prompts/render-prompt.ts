import { OttoError, isPlainObject } from "../core/index.ts";
import { PROMPT_CONTRACTS, type PromptValue, type PromptVars } from "./contracts.ts";
import { compilePrompt, type PromptOptions } from "./load-prompt.ts";
import type { PromptName } from "./names.ts";
import { untrusted, type UntrustedOptions } from "./untrusted.ts";

/** Why `value` cannot go into a template, or undefined when it can. */
function invalidValue(value: unknown, at: string): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${at} is ${value}`;
    case "object": {
      if (value === null) return `${at} is null`;
      if (Array.isArray(value)) {
        for (const [i, item] of value.entries()) {
          const problem = invalidValue(item, `${at}[${i}]`);
          if (problem) return problem;
        }
        return undefined;
      }
      if (!isPlainObject(value)) return `${at} is a ${value.constructor?.name ?? "non-plain object"}`;
      for (const [key, item] of Object.entries(value)) {
        const problem = invalidValue(item, `${at}.${key}`);
        if (problem) return problem;
      }
      return undefined;
    }
    default:
      return `${at} is a ${typeof value}`;
  }
}

/**
 * Renders one prompt with its variables. Checks, before rendering, that every required variable
 * of the prompt is present, that no unknown name is passed (a misspelt optional variable would
 * otherwise silently drop context), and that values are text, numbers, booleans, arrays or plain
 * objects. `undefined` counts as omitted.
 */
export function renderPrompt<N extends PromptName>(name: N, vars: PromptVars<N>, options: PromptOptions & UntrustedOptions = {}): string {
  const prompt = compilePrompt(name, options);
  const fenced: Readonly<Record<string, string>> = (PROMPT_CONTRACTS[name] as { untrusted?: Record<string, string> }).untrusted ?? {};
  const { variables, optional } = prompt.meta;
  const known = new Set([...variables, ...optional]);
  const where = prompt.source === "user" ? `override ${prompt.file}` : prompt.file;
  const given: Record<string, PromptValue> = {};

  for (const [key, value] of Object.entries(vars as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (!known.has(key)) {
      throw new OttoError(
        "prompt_variable",
        `Prompt '${name}' does not take variable '${key}' (${where}).`,
        `Pass only: ${[...known].join(", ")}.`,
      );
    }
    const problem = invalidValue(value, key);
    if (problem) {
      throw new OttoError(
        "prompt_variable",
        `Prompt '${name}' got an unusable value for '${key}': ${problem}.`,
        "Pass text, numbers, booleans, arrays or plain objects (format dates and class instances as text first).",
      );
    }
    const source = fenced[key];
    // Forge and model text is fenced here, below every caller and template.
    given[key] = source === undefined ? (value as PromptValue) : untrusted(key.replace(/_/g, " "), typeof value === "string" ? value : JSON.stringify(value, null, 2), source, options);
  }

  for (const required of variables) {
    if (!(required in given)) {
      throw new OttoError(
        "prompt_variable",
        `Prompt '${name}' needs variable '${required}' (${where}).`,
        `Pass '${required}' when rendering '${name}' (required: ${variables.join(", ")}); an empty string is allowed.`,
      );
    }
  }

  return prompt.template(given).trim();
}
