import matter from "gray-matter";
import { z } from "zod";
import { OttoError, matterOptions, formatZodIssues } from "../core/index.ts";

/** What a builtin prompt's frontmatter says about it. */
export const PromptMeta = z.strictObject({
  description: z.string().min(1),
  /** Names every render must pass. */
  variables: z.array(z.string()).default([]),
  /** Names the template only uses inside `{{#if name}}`. */
  optional: z.array(z.string()).default([]),
  /** The answer ends with a BEGIN_JSON … END_JSON envelope. */
  envelope: z.boolean().default(false),
  /** The answer carries a whole document between BEGIN_DOCUMENT and END_DOCUMENT. */
  document: z.boolean().default(false),
  /** The session works in the repository and may change the working tree (executor agent). */
  edits: z.boolean().default(false),
});
export type PromptMeta = z.infer<typeof PromptMeta>;

export interface PromptFile {
  /** Raw frontmatter data ({} when the file has none). */
  data: Record<string, unknown>;
  /** The template text after the frontmatter, untrimmed so template line numbers stay meaningful. */
  content: string;
  /** How many lines the frontmatter took: template line N is file line N + lineOffset. */
  lineOffset: number;
}

/** Splits a prompt file into frontmatter and template. Pure; `file` is only used in errors. */
export function parsePromptFile(text: string, file: string): PromptFile {
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, matterOptions());
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new OttoError(
      "prompt_frontmatter",
      `The frontmatter of ${file} is not valid YAML: ${detail}`,
      `Fix the block between the '---' lines at the top of ${file}, or delete it (frontmatter is optional in overrides).`,
      { cause: error },
    );
  }
  const content = parsed.content;
  const head = text.endsWith(content) ? text.slice(0, text.length - content.length) : "";
  const lineOffset = head.split("\n").length - 1;
  return { data: parsed.data, content, lineOffset };
}

/** Validates a builtin prompt's frontmatter. A failure here is a packaging bug in otto. */
export function parsePromptMeta(data: Record<string, unknown>, file: string): PromptMeta {
  const result = PromptMeta.safeParse(data);
  if (!result.success) {
    throw new OttoError("prompt_meta", `Invalid frontmatter in ${file}: ${formatZodIssues(result.error.issues, { inline: true })}`, "Reinstall otto; this file ships with it.");
  }
  return result.data;
}
