import Handlebars from "handlebars";
import { HELPER_NAMES } from "./compile-template.ts";

/** One place a template reads a variable. */
export interface VariableUse {
  name: string;
  /** Inside `{{#if name}}` (or the `#if` test itself): safe to omit. */
  guarded: boolean;
  line: number;
}

type Node = hbs.AST.Node;
const BLOCK_HELPERS = new Set(["if", "unless", "each", "with", "lookup", "log"]);
const HELPERS = new Set<string>([...HELPER_NAMES, ...BLOCK_HELPERS]);

/**
 * The top-level variables a template reads, found by walking its syntax tree. Used by tests to
 * hold each builtin prompt to its frontmatter, and by docs tooling. References inside `{{#each}}`
 * are skipped: there the context is the list item, not the variables.
 */
export function templateVariables(content: string): VariableUse[] {
  const uses: VariableUse[] = [];

  const visit = (node: Node | undefined, guards: readonly string[]): void => {
    if (!node) return;
    switch (node.type) {
      case "Program":
        for (const statement of (node as hbs.AST.Program).body) visit(statement, guards);
        return;
      case "PathExpression": {
        const path = node as hbs.AST.PathExpression & { data?: boolean; head?: unknown };
        const name = path.parts[0];
        if (path.data || name === undefined || path.original.startsWith("this")) return;
        uses.push({ name, guarded: guards.includes(name), line: node.loc.start.line });
        return;
      }
      case "MustacheStatement":
      case "SubExpression": {
        const call = node as hbs.AST.MustacheStatement;
        const isHelper =
          call.path.type === "PathExpression" && HELPERS.has((call.path as hbs.AST.PathExpression).original);
        if (!isHelper) visit(call.path, guards);
        for (const param of call.params) visit(param, guards);
        for (const pair of call.hash?.pairs ?? []) visit(pair.value, guards);
        return;
      }
      case "BlockStatement": {
        const block = node as hbs.AST.BlockStatement;
        const helper = block.path.original;
        const first = block.params[0];
        const tested = first?.type === "PathExpression" ? (first as hbs.AST.PathExpression).parts[0] : undefined;
        // The test of `#if x` is a non-strict lookup, so it is safe even when x is absent.
        for (const param of block.params) visit(param, helper === "if" && tested ? [...guards, tested] : guards);
        if (helper === "each") {
          visit(block.inverse, guards);
          return;
        }
        visit(block.program, helper === "if" && tested ? [...guards, tested] : guards);
        visit(block.inverse, guards);
        return;
      }
      default:
        return;
    }
  };

  visit(Handlebars.parse(content), []);
  return uses;
}
