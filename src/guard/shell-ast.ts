import { forEachChild, parse, type Command, type Redirection, type SyntaxNode, type Word, type WordPart } from "unbash";

/*
 * The bash tool's command line as a list of simple commands, read with unbash (a maintained,
 * zero-dependency bash parser). Every command is found wherever it sits: in pipelines, `&&` / `;`
 * lists, subshells, `$(…)`, backticks, process substitutions, function bodies and control flow.
 * A word whose value is only known when the shell runs (an expansion, a glob, a brace list) has
 * no `value`, so a check can refuse what it cannot read instead of guessing.
 */

export interface ShellArg {
  /** The word as the command receives it, quotes removed; undefined when the shell computes it. */
  value: string | undefined;
  /** The word as written. */
  text: string;
}

export interface ShellRedirect {
  operator: string;
  target: ShellArg | undefined;
  /** A here-document's or here-string's text (what the command reads on stdin). */
  input?: string;
}

export interface SimpleCommand {
  name: ShellArg | undefined;
  args: ShellArg[];
  /** `NAME=value` before the command (or alone, as a shell assignment). */
  assignments: Array<{ name: string; value: ShellArg }>;
  redirects: ShellRedirect[];
  /** Reads the previous command of a pipeline on stdin. */
  piped: boolean;
  /** The text of the command, for messages. */
  source: string;
}

export interface ParsedLine {
  commands: SimpleCommand[];
  errors: string[];
}

const DYNAMIC = new Set<WordPart["type"]>([
  "SimpleExpansion",
  "ParameterExpansion",
  "CommandExpansion",
  "ArithmeticExpansion",
  "ProcessSubstitution",
  "Glob",
  "ExtendedGlob",
  "BraceExpansion",
  "LocaleString",
]);

function isStatic(parts: readonly WordPart[] | undefined): boolean {
  if (!parts) return true;
  return parts.every((part) => {
    if (DYNAMIC.has(part.type)) return false;
    if (part.type === "DoubleQuoted") return part.parts.every((child) => child.type === "Literal");
    return true;
  });
}

export function wordArg(word: Word): ShellArg {
  return { value: isStatic(word.parts) ? word.value : undefined, text: word.text };
}

function simpleCommand(node: Command, source: string, piped: boolean): SimpleCommand {
  const assignments: SimpleCommand["assignments"] = [];
  const args: ShellArg[] = [];
  for (const item of node.prefix) {
    if (item.type === "Assignment")
      assignments.push({
        name: item.name,
        value: item.value.type === "Word" ? wordArg(item.value) : { value: undefined, text: item.text },
      });
  }
  for (const item of node.suffix) {
    if (item.type === "Word") args.push(wordArg(item));
    else if (item.type === "Assignment") args.push({ value: item.text, text: item.text });
  }
  return {
    name: node.name ? wordArg(node.name) : undefined,
    args,
    assignments,
    redirects: node.redirects.map(redirectOf),
    piped,
    source: source.slice(node.pos, node.end),
  };
}

function redirectOf(redirect: Redirection): ShellRedirect {
  if (redirect.type === "HereDoc") return { operator: redirect.operator, target: undefined, input: redirect.body.text };
  if (redirect.type === "HereString")
    return {
      operator: redirect.operator,
      target: undefined,
      input: redirect.target ? (wordArg(redirect.target).value ?? redirect.target.text) : "",
    };
  return { operator: redirect.operator, target: redirect.target ? wordArg(redirect.target) : undefined };
}

/** Every simple command of `source`, nested ones included, with the parser's errors. */
export function parseLine(source: string): ParsedLine {
  const commands: SimpleCommand[] = [];
  const errors: string[] = [];
  const piped = new Set<SyntaxNode>();
  const visit = (node: SyntaxNode): void => {
    if (node.type === "Script" && node.errors) errors.push(...node.errors.map((e) => e.message));
    if (node.type === "Pipeline") node.commands.slice(1).forEach((c) => piped.add(c));
    if (node.type === "Command") commands.push(simpleCommand(node, source, piped.has(node)));
    // `{ …; } > file` and `( … ) > file`: the redirections of a compound command count too.
    if (node.type === "Redirected") {
      commands.push({
        name: undefined,
        args: [],
        assignments: [],
        redirects: node.redirects.map(redirectOf),
        piped: false,
        source: source.slice(node.pos, node.end),
      });
    }
    forEachChild(node, visit);
  };
  visit(parse(source));
  return { commands, errors };
}
