import { getLocation, parse, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser";
import { issueToProblems } from "./issues.ts";
import { formatKeyPath } from "./keypath.ts";
import { positionAt, isRecord } from "../core/index.ts";
import { describeValue, type ConfigProblem } from "./problems.ts";
import { ConfigFile } from "./schema.ts";

export interface ParseOptions {
  file: string;
  scope?: "user" | "repo";
}

export interface ParsedFile {
  /** The file as written (no defaults); undefined when it has problems. */
  value: Record<string, unknown> | undefined;
  problems: ConfigProblem[];
}

/** JSONC as OpenCode writes it: comments and trailing commas allowed. */
export const JSONC = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true } as const;

// Keyed by printParseErrorCode's names: ParseErrorCode is an ambient const enum (verbatimModuleSyntax).
const EXPECTED: Record<string, string> = {
  InvalidSymbol: "a JSON value",
  InvalidNumberFormat: "a number",
  PropertyNameExpected: "a quoted key",
  ValueExpected: "a value",
  ColonExpected: "a ':' after the key",
  CommaExpected: "a ','",
  CloseBraceExpected: "a '}'",
  CloseBracketExpected: "a ']'",
  EndOfFileExpected: "the end of the file",
  InvalidCommentToken: "a comment (// or /* */)",
  UnexpectedEndOfComment: "'*/' closing the comment",
  UnexpectedEndOfString: "'\"' closing the string",
  InvalidEscapeCharacter: 'a valid escape (\\" \\\\ \\n \\t \\uXXXX)',
  InvalidUnicode: "a \\uXXXX escape",
  InvalidCharacter: "a printable character (control characters must be escaped)",
};

function syntaxProblem(text: string, error: ParseError, options: ParseOptions): ConfigProblem {
  const { line, column } = positionAt(text, error.offset);
  const snippet = text.slice(error.offset, error.offset + Math.max(error.length, 1)).split("\n")[0] ?? "";
  return {
    file: options.file,
    line,
    column,
    // jsonc-parser reports an unfinished property name as an empty last segment.
    key: formatKeyPath(getLocation(text, error.offset).path.filter((segment) => segment !== "")),
    expected: EXPECTED[printParseErrorCode(error.error)] ?? "valid JSONC",
    found: error.offset >= text.length ? "the end of the file" : `'${snippet}'`,
    fix: `Fix the JSONC syntax at ${options.file}:${line}:${column} (comments and trailing commas are allowed).`,
  };
}

/** Parses and validates one otto.jsonc text. Pure: the caller reads the file. */
export function parseConfigText(text: string, options: ParseOptions): ParsedFile {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, JSONC);
  if (errors.length > 0) {
    // The parser can report the same spot twice while recovering; keep one of each.
    const problems = errors.map((e) => syntaxProblem(text, e, options));
    return {
      value: undefined,
      problems: problems.filter((p, i) => problems.findIndex((q) => q.line === p.line && q.column === p.column) === i),
    };
  }
  if (value === undefined) return { value: {}, problems: [] };
  if (!isRecord(value)) {
    const problem: ConfigProblem = {
      file: options.file,
      ...positionAt(text, Math.max(0, text.search(/\S/))),
      key: "(top level)",
      expected: "an object ({ ... })",
      found: describeValue(value),
      fix: `Wrap the settings in { } in ${options.file}.`,
    };
    return { value: undefined, problems: [problem] };
  }
  const result = ConfigFile.safeParse(value);
  if (result.success) return { value, problems: [] };
  const ctx = { ...options, text, tree: parseTree(text, undefined, JSONC), value };
  const problems = result.error.issues.flatMap((issue) => issueToProblems(issue, ctx));
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { value: undefined, problems };
}
