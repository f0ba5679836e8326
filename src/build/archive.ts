import fs from "node:fs/promises";
import path from "node:path";
import { OttoError, assertOttoPathSafe, exists } from "../core/index.ts";
import { runProcess } from "../core/run.ts";
import { specPaths, specsDir } from "../spec/index.ts";
import type { BuildTarget } from "./state.ts";

/** `2026-11-21-demo` (UTC date). Pure. */
export function archiveName(slug: string, now: Date): string {
  return `${now.toISOString().slice(0, 10)}-${slug}`;
}

export interface ArchiveResult {
  /** Where the target went (relative to the repository), when it was archived. */
  archivedTo?: string;
  /** Said to the user (an OpenSpec change left in place, and why). */
  note?: string;
}

export interface ArchiveDeps {
  repoRoot: string;
  now: () => Date;
  env?: Record<string, string | undefined>;
  /** Runs the OpenSpec CLI; undefined when it is not installed. Default: `openspec` on PATH. */
  openspec?: (args: string[]) => Promise<{ exitCode: number; output: string } | undefined>;
}

/**
 * Moves a finished otto spec to `.otto/specs/archive/YYYY-MM-DD-<slug>/`; archives an OpenSpec
 * change with the `openspec` CLI when it is installed, and otherwise leaves it for the user.
 */
export async function archiveTarget(target: BuildTarget, deps: ArchiveDeps): Promise<ArchiveResult> {
  if (target.kind === "openspec") return archiveChange(target.name, deps);
  const from = specPaths(deps.repoRoot, target.name).dir;
  const archive = path.join(specsDir(deps.repoRoot), "archive");
  await assertOttoPathSafe(from);
  await assertOttoPathSafe(archive);
  await fs.mkdir(archive, { recursive: true });
  let to = path.join(archive, archiveName(target.name, deps.now()));
  // A spec archived twice on one day (rebuilt after a reset) keeps both folders.
  for (let n = 2; await exists(to); n++) to = path.join(archive, `${archiveName(target.name, deps.now())}-${n}`);
  await fs.rename(from, to);
  return { archivedTo: path.relative(deps.repoRoot, to) };
}

async function archiveChange(change: string, deps: ArchiveDeps): Promise<ArchiveResult> {
  const run = deps.openspec ?? ((args: string[]) => runOpenspec(args, deps));
  const result = await run(["archive", change, "--yes"]);
  if (!result) {
    return {
      note: `The openspec CLI is not installed, so the change was left in openspec/changes/${change}: archive it with \`openspec archive ${change}\`.`,
    };
  }
  if (result.exitCode !== 0) {
    throw new OttoError(
      "archive_failed",
      `openspec archive ${change} failed (exit ${result.exitCode}): ${result.output.trim().slice(0, 2000)}`,
      `Run \`openspec archive ${change}\` yourself`,
    );
  }
  return { archivedTo: `openspec/changes/archive (${change})` };
}

async function runOpenspec(args: string[], deps: ArchiveDeps): Promise<{ exitCode: number; output: string } | undefined> {
  const result = await runProcess("openspec", args, { cwd: deps.repoRoot, env: deps.env, all: true, timeoutMs: 120_000 });
  // ENOENT: a command that could not start has no exit code.
  if (result.exitCode === undefined || (result.failed && /ENOENT/.test(result.message))) return undefined;
  return { exitCode: result.exitCode, output: result.all };
}
