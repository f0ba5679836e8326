import { parse, parseTree, type ParseError } from "jsonc-parser";
import { OttoError, readTextIfExists, redact, isRecord } from "../core/index.ts";
import { findRepoRoot, repoConfigFile } from "./files.ts";
import { formatKeyPath, parseKeyPath } from "./keypath.ts";
import { locatePath } from "./locate.ts";
import { JSONC } from "./parse.ts";
import { secretKeysSet } from "./secrets.ts";

/** A credential in a repo's `.otto/otto.jsonc`, which is committed with the repo. */
export interface RepoFileSecret {
  file: string;
  key: string;
  line: number;
  /** "a secret key" (a token, a webhook URL) or "a value that looks like a credential". */
  kind: "secret key" | "credential-like value";
}

function eachString(node: unknown, at: Array<string | number>, visit: (path: Array<string | number>, value: string) => void): void {
  if (typeof node === "string") visit(at, node);
  else if (Array.isArray(node)) node.forEach((item, i) => eachString(item, [...at, i], visit));
  else if (isRecord(node)) for (const [key, child] of Object.entries(node)) eachString(child, [...at, key], visit);
}

/**
 * Pure: the credentials in a repo config text: every secret key that is set, and any other value
 * the redaction patterns recognise (a token inside notify.command, a user:pass URL). Never the values.
 */
export function findRepoFileSecrets(text: string, file: string): RepoFileSecret[] {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, JSONC);
  const tree = parseTree(text, undefined, JSONC);
  const out: RepoFileSecret[] = [];
  const lineOf = (key: string): number => {
    try {
      return locatePath(text, tree, parseKeyPath(key)).line;
    } catch {
      return 1; // a key otto's key syntax cannot spell; the file is reported anyway
    }
  };
  const keys = new Set(secretKeysSet(value));
  for (const key of keys) out.push({ file, key, line: lineOf(key), kind: "secret key" });
  eachString(value, [], (path, s) => {
    const key = formatKeyPath(path);
    if (!keys.has(key) && redact(s) !== s) out.push({ file, key, line: lineOf(key), kind: "credential-like value" });
  });
  // Comments are committed too; a JSONC parse drops them, so look at the text's comment lines.
  text.split("\n").forEach((line, i) => {
    const comment = /^\s*(\/\/|\/\*|\*)/.test(line);
    if (comment && redact(line) !== line) out.push({ file, key: "(comment)", line: i + 1, kind: "credential-like value" });
  });
  return out.sort((a, b) => a.line - b.line);
}

/** The credentials in `<repoRoot>/.otto/otto.jsonc` (none when the file does not exist). */
export async function repoFileSecrets(repoRoot: string): Promise<RepoFileSecret[]> {
  const file = repoConfigFile(repoRoot);
  const text = await readTextIfExists(file);
  return text === undefined ? [] : findRepoFileSecrets(text, file);
}

export function describeRepoFileSecrets(found: readonly RepoFileSecret[]): string {
  return found
    .map((s) => `${s.file}:${s.line} ${s.key}: ${s.kind === "secret key" ? "a secret" : "a value that looks like a credential"}`)
    .join("\n");
}

/** What the commit paths pass in: their own git runner, so config stays free of git. */
export type GitCheck = (args: string[], options: { cwd: string }) => Promise<{ exitCode: number }>;

/**
 * Refuses to go on when the working tree's `.otto/otto.jsonc` holds a credential and git would
 * commit it (tracked, or not ignored). Called by every flow just before it commits.
 */
export async function assertNoCommittedSecrets(cwd: string, git: GitCheck): Promise<void> {
  const root = (await findRepoRoot(cwd)) ?? cwd;
  const found = await repoFileSecrets(root);
  if (found.length === 0) return;
  // Exit 0: ignored and untracked, so `git add -A` leaves it alone.
  const ignored = await git(["check-ignore", "-q", "--", ".otto/otto.jsonc"], { cwd: root });
  if (ignored.exitCode === 0) return;
  throw new OttoError(
    "config_secret_in_repo",
    `Refused to commit: the repo config would be committed with a credential in it:\n${describeRepoFileSecrets(found)}`,
    "Move it to your user config (/otto-config set <key> <value> writes secret keys there) or an environment variable (GITHUB_TOKEN, OTTO_ADO_PAT), remove it from .otto/otto.jsonc, then run the command again. If it was committed before, rotate it.",
  );
}
