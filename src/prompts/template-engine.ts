import { positionAt, type Position } from "../core/index.ts";
/*
 * The template language of otto's prompts and branch templates: the part of Handlebars they use,
 * with Handlebars' meaning (docs/decisions.md, "Prompt templates are a Handlebars subset").
 *
 *   {{name}}                           a variable; strict: one that was not passed is an error
 *   {{list name}}  {{json name}}       the helpers (HELPERS below)
 *   {{#if name}}…{{else}}…{{/if}}      falsy: undefined, null, false, 0, "", []
 *   {{#unless name}}…{{else}}…{{/unless}}
 *
 * Values are inserted as they are (no HTML escaping, no template syntax inside values), and a
 * block tag alone on its line takes that line with it, as in Handlebars ("standalone" tags).
 */

export type { Position };

export type TemplateErrorKind = "syntax" | "undefined_variable" | "undefined_helper_argument";

/** What went wrong and where; compile-template.ts turns it into an OttoError naming the file. */
export class TemplateError extends Error {
  constructor(
    readonly kind: TemplateErrorKind,
    message: string,
    readonly position: Position | undefined,
    /** The variable (undefined_variable) or helper (undefined_helper_argument) concerned. */
    readonly subject?: string,
  ) {
    super(message);
    this.name = "TemplateError";
  }
}

export type Helper = (value: unknown) => string;

interface Content {
  type: "content";
  /** The text as written: the standalone tests read it, never the stripped value. */
  original: string;
  value: string;
  leftStripped?: boolean;
  rightStripped?: boolean;
}
interface Mustache {
  type: "mustache";
  /** A helper's name, or undefined for a plain variable. */
  helper?: string;
  name: string;
  at: Position;
}
interface Block {
  type: "block";
  helper: "if" | "unless";
  name: string;
  program: Program;
  inverse?: Program;
  at: Position;
}
export type Node = Content | Mustache | Block;
export interface Program {
  body: Node[];
}

const NAME = /^[A-Za-z_$][\w$-]*$/;

/** Parses a template, checking its helpers against `helpers`; throws TemplateError("syntax"). */
export function parseTemplate(source: string, helpers: ReadonlySet<string>): Program {
  const root: Program = { body: [] };
  const stack: Array<{ block: Block; inElse: boolean }> = [];
  const current = (): Program => {
    const top = stack.at(-1);
    if (!top) return root;
    return top.inElse ? (top.block.inverse ??= { body: [] }) : top.block.program;
  };
  const fail = (message: string, offset: number): never => {
    throw new TemplateError("syntax", message, positionAt(source, offset));
  };
  let index = 0;
  while (index < source.length) {
    const open = source.indexOf("{{", index);
    const textEnd = open === -1 ? source.length : open;
    if (textEnd > index) current().body.push({ type: "content", original: source.slice(index, textEnd), value: source.slice(index, textEnd) });
    if (open === -1) break;
    const close = source.indexOf("}}", open + 2);
    if (close === -1) fail("the template ends inside an unclosed {{…}}", open);
    const raw = source.slice(open + 2, close);
    const at = positionAt(source, open);
    index = close + 2;
    if (raw.startsWith("{") || raw.startsWith("~") || raw.endsWith("~") || raw.startsWith("!") || raw.startsWith(">")) {
      fail(`{{${raw}}} is not supported here: otto's templates know {{name}}, {{#if name}}…{{else}}…{{/if}}, {{#unless name}}…{{/unless}}, {{list name}} and {{json name}}`, open);
    }
    const words = raw.trim().split(/\s+/).filter(Boolean);
    const first = words[0] ?? "";
    if (first.startsWith("#")) {
      const helper = first.slice(1);
      if (helper !== "if" && helper !== "unless") fail(`{{#${helper}}} is not supported: the blocks are {{#if name}} and {{#unless name}}`, open);
      const name = words[1];
      if (words.length !== 2 || name === undefined || !NAME.test(name)) fail(`{{#${helper}}} takes one variable name, e.g. {{#${helper} name}}`, open);
      const block: Block = { type: "block", helper: helper as Block["helper"], name: name as string, program: { body: [] }, at };
      current().body.push(block);
      stack.push({ block, inElse: false });
    } else if (first.startsWith("/")) {
      const helper = first.slice(1);
      const top = stack.pop();
      if (!top) fail(`a closing {{/${helper}}} without its opening {{#${helper}}}`, open);
      else if (top.block.helper !== helper || words.length !== 1) {
        throw new TemplateError("syntax", `{{#${top.block.helper} ${top.block.name}}} is closed by {{/${raw.trim().slice(1)}}} on line ${at.line}; close it with {{/${top.block.helper}}}`, top.block.at);
      }
    } else if (first === "else" && words.length === 1) {
      const top = stack.at(-1);
      if (!top || top.inElse) fail("{{else}} outside an {{#if}} or {{#unless}} block", open);
      else top.inElse = true;
    } else if (words.length === 1 && NAME.test(first)) {
      current().body.push({ type: "mustache", name: first, at });
    } else if (words.length === 2 && helpers.has(first) && NAME.test(words[1] ?? "")) {
      current().body.push({ type: "mustache", helper: first, name: words[1] as string, at });
    } else if (words.length === 0) {
      fail("an empty {{}}", open);
    } else if (words.length === 2 && NAME.test(first)) {
      fail(`'${first}' is not a helper: the helpers are ${[...helpers].join(", ")}`, open);
    } else {
      fail(`{{${raw.trim()}}} is not a variable name or a helper call`, open);
    }
  }
  const open = stack.at(-1);
  if (open) throw new TemplateError("syntax", `{{#${open.block.helper} ${open.block.name}}} is unclosed: the template ends before its {{/${open.block.helper}}}`, open.block.at);
  stripStandalone(root, true);
  return root;
}

/*
 * Handlebars' standalone rule, as its WhitespaceControl pass applies it: a block's opening,
 * {{else}} or closing tag with only whitespace around it on its line removes the line's
 * indentation and its line break, so block tags can sit on lines of their own.
 */

function isPrevWhitespace(body: Node[], i: number | undefined, isRoot: boolean): boolean {
  const at = i ?? body.length;
  const prev = body[at - 1];
  const sibling = body[at - 2];
  if (!prev) return isRoot;
  if (prev.type !== "content") return false;
  return (sibling || !isRoot ? /\r?\n\s*?$/ : /(^|\r?\n)\s*?$/).test(prev.original);
}

function isNextWhitespace(body: Node[], i: number | undefined, isRoot: boolean): boolean {
  const at = i ?? -1;
  const next = body[at + 1];
  const sibling = body[at + 2];
  if (!next) return isRoot;
  if (next.type !== "content") return false;
  return (sibling || !isRoot ? /^\s*?\r?\n/ : /^\s*?(\r?\n|$)/).test(next.original);
}

function omitRight(body: Node[], i: number | undefined): void {
  const current = body[i === undefined ? 0 : i + 1];
  if (!current || current.type !== "content" || current.rightStripped) return;
  const original = current.value;
  current.value = current.value.replace(/^[ \t]*\r?\n?/, "");
  current.rightStripped = current.value !== original;
}

function omitLeft(body: Node[], i: number | undefined): void {
  const current = body[i === undefined ? body.length - 1 : i - 1];
  if (!current || current.type !== "content" || current.leftStripped) return;
  const original = current.value;
  current.value = current.value.replace(/[ \t]+$/, "");
  current.leftStripped = current.value !== original;
}

function stripStandalone(program: Program, isRoot: boolean): void {
  const body = program.body;
  for (let i = 0; i < body.length; i++) {
    const block = body[i];
    if (block?.type !== "block") continue;
    stripStandalone(block.program, false);
    if (block.inverse) stripStandalone(block.inverse, false);
    const openStandalone = isNextWhitespace(block.program.body, undefined, false) && isPrevWhitespace(body, i, isRoot);
    const closeStandalone = isPrevWhitespace((block.inverse ?? block.program).body, undefined, false) && isNextWhitespace(body, i, isRoot);
    if (block.inverse && isPrevWhitespace(block.program.body, undefined, false) && isNextWhitespace(block.inverse.body, undefined, false)) {
      omitLeft(block.program.body, undefined);
      omitRight(block.inverse.body, undefined);
    }
    if (openStandalone) {
      omitRight(block.program.body, undefined);
      omitLeft(body, i);
    }
    if (closeStandalone) {
      omitRight(body, i);
      omitLeft((block.inverse ?? block.program).body, undefined);
    }
  }
}

/** Text of a value: an array joined by commas as in Handlebars; an object as JSON, not "[object Object]". */
function display(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => (item === undefined || item === null ? "" : display(item))).join(",");
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return value.toString();
  return JSON.stringify(value) ?? "";
}

/** Handlebars' #if: false for falsy values and empty arrays. */
function truthy(value: unknown): boolean {
  return Boolean(value) && !(Array.isArray(value) && value.length === 0);
}

/** Renders a parsed template; throws TemplateError for a variable that was not passed. */
export function renderTemplate(program: Program, vars: Record<string, unknown>, helpers: ReadonlyMap<string, Helper>): string {
  const has = (name: string): boolean => Object.hasOwn(vars, name);
  let out = "";
  const visit = (nodes: readonly Node[]): void => {
    for (const node of nodes) {
      if (node.type === "content") {
        out += node.value;
      } else if (node.type === "mustache") {
        if (node.helper) {
          if (!has(node.name) || vars[node.name] === undefined) {
            throw new TemplateError("undefined_helper_argument", `"${node.helper}" was given a variable that is not defined`, node.at, node.helper);
          }
          out += (helpers.get(node.helper) as Helper)(vars[node.name]);
        } else {
          if (!has(node.name)) throw new TemplateError("undefined_variable", `"${node.name}" not defined`, node.at, node.name);
          const value = vars[node.name];
          if (value !== undefined && value !== null) out += display(value);
        }
      } else {
        const test = truthy(has(node.name) ? vars[node.name] : undefined);
        const taken = (node.helper === "if") === test ? node.program : node.inverse;
        if (taken) visit(taken.body);
      }
    }
  };
  visit(program.body);
  return out;
}
