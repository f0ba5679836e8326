import { HELPER_NAMES } from "./compile-template.ts";
import { parseTemplate, type Node } from "./template-engine.ts";

/** One place a template reads a variable. */
export interface VariableUse {
  name: string;
  /** Inside `{{#if name}}` (or the block's test itself): safe to omit. */
  guarded: boolean;
  line: number;
}

/**
 * The variables a template reads, found by walking its syntax tree. Used by tests to hold each
 * builtin prompt to its frontmatter, and by docs tooling.
 */
export function templateVariables(content: string): VariableUse[] {
  const uses: VariableUse[] = [];
  const visit = (nodes: readonly Node[], guards: readonly string[]): void => {
    for (const node of nodes) {
      if (node.type === "mustache") {
        uses.push({ name: node.name, guarded: guards.includes(node.name), line: node.at.line });
      } else if (node.type === "block") {
        // A block's test is a lookup that allows a missing variable.
        uses.push({ name: node.name, guarded: true, line: node.at.line });
        visit(node.program.body, node.helper === "if" ? [...guards, node.name] : guards);
        if (node.inverse) visit(node.inverse.body, guards);
      }
    }
  };
  visit(parseTemplate(content, new Set(HELPER_NAMES)).body, []);
  return uses;
}
