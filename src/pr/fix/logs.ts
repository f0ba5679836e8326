import { commandLines } from "./log-commands.ts";
import fs from "node:fs/promises";
import path from "node:path";
import { assertOttoPathSafe, formatError, redact, type Env } from "../../core/index.ts";
import { excludeFromGit } from "../../repo/index.ts";
import type { PrBackend } from "../backend.ts";
import type { Check, PrInfo } from "../types.ts";
import { trimLog } from "./trim-log.ts";

/*
 * Downloads the failed checks' logs, trims them (trim-log.ts) and writes them twice: the record in
 * the PR's data folder (`prs/<key>/logs/`), and a copy inside the worktree (`.otto/pr-logs/<key>/`,
 * kept out of git through .git/info/exclude) for the analysis session: OpenCode asks before a tool
 * reads outside the session's directory, and nobody answers in a background fix.
 */

export const WORKTREE_LOG_DIR = ".otto/pr-logs";
const EXCLUDE_LINE = `/${WORKTREE_LOG_DIR}/`;

export interface CollectedLogs {
  /** Paths relative to the worktree, for the prompt. */
  files: string[];
  /** The worktree folder holding them (deleted after the analysis). */
  worktreeDir: string;
  /** Where the record is kept. */
  recordDir: string;
  /** Checks whose log could not be read, with why. */
  missing: string[];
  /** The trimmed, redacted log of each failed check that has one, by check name (the failure's fingerprint is read from it). */
  texts: Map<string, string>;
  /** Per check, the whole log's lines that say what its steps ran (log-commands.ts): the screen maps a check to the project's command from them. */
  commands: Map<string, string>;
}

export interface CollectInput {
  backend: PrBackend;
  pr: PrInfo;
  key: string;
  checks: readonly Check[];
  /** The PR's worktree. */
  dir: string;
  /** `$XDG_DATA_HOME/otto/prs` */
  storeDir: string;
  secrets: readonly string[];
  env?: Env;
  signal?: AbortSignal;
}

const fileName = (index: number, name: string): string =>
  `${String(index + 1).padStart(2, "0")}-${name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "_")
    .slice(0, 60)}.log`;

export async function collectLogs(input: CollectInput): Promise<CollectedLogs> {
  const worktreeDir = path.join(input.dir, WORKTREE_LOG_DIR, input.key);
  const recordDir = path.join(input.storeDir, input.key, "logs");
  // The PR's checkout is the PR author's: a committed `.otto` link must not turn this rm -r and these writes elsewhere.
  await assertOttoPathSafe(worktreeDir);
  await excludeLogDir(input.dir, input.env);
  // Old logs would mislead the session: each run starts from an empty folder.
  await fs.rm(worktreeDir, { recursive: true, force: true });
  await fs.mkdir(worktreeDir, { recursive: true });
  await fs.rm(recordDir, { recursive: true, force: true });
  await fs.mkdir(recordDir, { recursive: true, mode: 0o700 });
  const files: string[] = [];
  const missing: string[] = [];
  const texts = new Map<string, string>();
  const commands = new Map<string, string>();
  const failed = input.checks.filter((c) => c.state === "failure");
  for (const [index, check] of failed.entries()) {
    if (!check.logId) {
      missing.push(`${check.name}: the provider offers no log for it${check.url ? ` (see ${check.url})` : ""}`);
      continue;
    }
    let text: string;
    try {
      text = await input.backend.getBuildLogs(input.pr, check.logId, input.signal ? { signal: input.signal } : {});
    } catch (error) {
      missing.push(`${check.name}: ${redact(formatError(error), input.secrets)}`);
      continue;
    }
    const header = `# Log of check '${check.name}' (${check.logId}), trimmed by otto to error lines with context and the end\n`;
    const trimmed = trimLog(redact(text, input.secrets));
    texts.set(check.name, trimmed);
    commands.set(check.name, commandLines(redact(text, input.secrets)));
    const body = `${header}${trimmed}\n`;
    const name = fileName(index, check.name);
    await fs.writeFile(path.join(recordDir, name), body, { mode: 0o600 });
    await fs.writeFile(path.join(worktreeDir, name), body);
    files.push(path.join(WORKTREE_LOG_DIR, input.key, name));
  }
  return { files, worktreeDir, recordDir, missing, texts, commands };
}

/** Keeps the log copies out of git (info/exclude, shared by the repository's worktrees). */
function excludeLogDir(dir: string, env?: Env): Promise<void> {
  return excludeFromGit(dir, EXCLUDE_LINE, "otto: CI logs of PRs being fixed (local)", env);
}
