import { join } from "node:path";
import { isOttoError } from "../core/index.ts";
import { runGit } from "../workspace/index.ts";
import { CHECK_TEXT_FILES, detectChecks, type CheckDetection, type CheckFacts } from "./detect-checks.ts";
import { listFiles } from "./list-files.ts";
import { findManifestPaths, parseManifest } from "./read-manifests.ts";
import { readHead } from "./read-head.ts";
import type { GitRunner, Manifest } from "./types.ts";

/** The config key a list of checks belongs to. */
export type ChecksKey = "spec.verify" | "pr.verify";

/** One check as a flow runs it: the command and where it came from. */
export interface ResolvedCheck {
  command: string;
  /** "spec.verify" when configured, "package.json scripts.test" when detected. */
  source: string;
}

/** The checks a flow runs: the configured list when the key is set (even `[]`), else the detected ones. */
export interface ResolvedChecks {
  key: ChecksKey;
  origin: "configured" | "detected";
  checks: ResolvedCheck[];
  /** Detection's notes (nothing found, manifests only below the root). */
  notes: string[];
}

const BYTES = 64 * 1024;

const listingGit: GitRunner = async (args, { cwd, timeoutMs }) => {
  try {
    return await runGit(args, { cwd, timeoutMs, maxBuffer: 512 * 1024 * 1024 });
  } catch (error) {
    if (!isOttoError(error)) throw error;
    return { exitCode: -1, stdout: "", stderr: error.message };
  }
};

/** Reads what detection needs from the tree at `root` (the root's manifests and a few files), then detects. */
export async function readProjectChecks(root: string, options: { git?: GitRunner; now?: () => number } = {}): Promise<CheckDetection> {
  const { detection } = await readProjectFacts(root, options);
  return detection;
}

/** The facts detection reads at `root`, with its detection: what a task's acceptance check is held against. */
export async function readProjectFacts(
  root: string,
  options: { git?: GitRunner; now?: () => number } = {},
): Promise<{ facts: CheckFacts; detection: CheckDetection }> {
  const now = options.now ?? Date.now;
  const listing = await listFiles(root, { maxFiles: 20_000, deadline: now() + 3_000, now, git: options.git ?? listingGit });
  const rootFiles = listing.files.filter((f) => !f.includes("/"));
  const manifestFiles = new Set(findManifestPaths(rootFiles));
  const notes: string[] = [];
  const manifests: Manifest[] = [];
  const texts: Record<string, string> = {};
  for (const file of rootFiles) {
    const isText = (CHECK_TEXT_FILES as readonly string[]).includes(file);
    if (!isText && !manifestFiles.has(file)) continue;
    const text = await readHead(join(root, file), BYTES);
    if (text === undefined) continue;
    if (isText) texts[file] = text;
    const parsed = manifestFiles.has(file) ? parseManifest(file, text, notes) : undefined;
    if (parsed) manifests.push(parsed);
  }
  const facts: CheckFacts = { files: listing.files, manifests, texts };
  const detection = detectChecks(facts);
  return { facts, detection: { checks: detection.checks, notes: [...notes, ...detection.notes] } };
}

/**
 * The one place every flow gets its checks from: `configured` (the config key's value, undefined
 * when unset) wins, even when it is `[]`; otherwise the project's own checks, detected in `dir`
 * (the tree the checks will run in, e.g. a PR's worktree).
 */
export async function resolveChecks(
  key: ChecksKey,
  configured: readonly string[] | undefined,
  dir: string,
  detect: (dir: string) => Promise<CheckDetection> = readProjectChecks,
): Promise<ResolvedChecks> {
  if (configured !== undefined)
    return { key, origin: "configured", checks: configured.map((command) => ({ command, source: key })), notes: [] };
  const detection = await detect(dir);
  return { key, origin: "detected", checks: detection.checks, notes: detection.notes };
}

/** The commands alone, in order. */
export function checkCommands(resolved: ResolvedChecks): string[] {
  return resolved.checks.map((c) => c.command);
}

/** "npm test (detected: package.json scripts.test)", "npm test (configured: spec.verify)". */
export function describeCheck(resolved: ResolvedChecks, command: string): string {
  const check = resolved.checks.find((c) => c.command === command);
  return `${command} (${resolved.origin}: ${check?.source ?? resolved.key})`;
}

/**
 * One line for summaries: "checks: npm test (detected: package.json scripts.test)", or why none
 * run: "checks: none (spec.verify is [])", "checks: none detected (set spec.verify)".
 */
export function describeResolvedChecks(resolved: ResolvedChecks): string {
  if (resolved.checks.length > 0) return `checks: ${resolved.checks.map((c) => describeCheck(resolved, c.command)).join(", ")}`;
  if (resolved.origin === "configured") return `checks: none (${resolved.key} is [])`;
  return `checks: none detected (set ${resolved.key} to run some)`;
}
