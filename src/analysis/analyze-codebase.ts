import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { OttoError, isOttoError } from "../core/index.ts";
import { runGit } from "../workspace/index.ts";
import { classifyArchetype } from "./classify-archetype.ts";
import { countLanguages } from "./detect-languages.ts";
import { detectConventions, pickKeyDependencies } from "./detect-conventions.ts";
import { listFiles } from "./list-files.ts";
import { readManifests } from "./read-manifests.ts";
import { sampleSources } from "./sample-sources.ts";
import { addSignal } from "./scan-source.ts";
import { summarizeLayout } from "./summarize-layout.ts";
import type { AnalyzeOptions, CodebaseSummary, GitRunner, Manifest, Signals } from "./types.ts";

export const DEFAULT_ANALYZE_OPTIONS = {
  maxFiles: 20_000,
  maxBytesPerFile: 64 * 1024,
  timeBudgetMs: 3_000,
  maxSampleFiles: 200,
} as const;

/**
 * The analysis falls back to a directory walk when git fails, so the runner's own errors (a
 * timeout, no git binary) come back as a failed result here instead of an exception.
 */
const analysisGit: GitRunner = async (args, { cwd, timeoutMs }) => {
  try {
    // `ls-files -z` on a repository with ~1M paths is tens of MB.
    return await runGit(args, { cwd, timeoutMs, maxBuffer: 512 * 1024 * 1024 });
  } catch (error) {
    if (!isOttoError(error)) throw error;
    return { exitCode: -1, stdout: "", stderr: error.message };
  }
};

/** Enough to characterise a project in a prompt without listing its lockfile. */
const MAX_KEY_DEPENDENCIES = 25;

/**
 * Deterministic, offline analysis of the repository at `root`: list files (git or a bounded
 * walk), read manifests, sample a bounded set of sources, then classify. Reads at most
 * `maxBytesPerFile` of any file and stops sampling at `timeBudgetMs`, noting what it skipped.
 */
export async function analyzeCodebase(root: string, options: AnalyzeOptions = {}): Promise<CodebaseSummary> {
  const settings = { ...DEFAULT_ANALYZE_OPTIONS, ...definedOnly(options) };
  const now = options.now ?? Date.now;
  const deadline = now() + settings.timeBudgetMs;
  const absolute = resolve(root);
  await assertDirectory(absolute);

  const listing = await listFiles(absolute, { maxFiles: settings.maxFiles, deadline, now, git: options.git ?? analysisGit });
  const { files } = listing;
  const notes = [...listing.notes];
  if (listing.truncated && files.length >= settings.maxFiles) {
    notes.push(`Listing stopped at the ${settings.maxFiles}-file limit; counts cover those files only.`);
  }
  const base = { root: absolute, files: { total: files.length, listedBy: listing.listedBy, truncated: listing.truncated } };
  if (files.length === 0) return emptySummary(base, notes);

  const { manifests, notes: manifestNotes } = await readManifests(absolute, files, settings.maxBytesPerFile);
  notes.push(...manifestNotes);
  const signals: Signals = new Map();
  addManifestSignals(manifests, signals);
  const sample = await sampleSources(absolute, files, signals, { ...settings, deadline, now });
  notes.push(...sample.notes);

  const deps = manifests.flatMap((m) => m.dependencies);
  return {
    ...base,
    empty: false,
    languages: countLanguages(files),
    manifests,
    keyDependencies: pickKeyDependencies(manifests, MAX_KEY_DEPENDENCIES),
    archetype: classifyArchetype({ deps, files, signals, manifests }),
    conventions: detectConventions({ deps, files, signals }),
    layout: summarizeLayout(files, manifests),
    sample: { files: sample.files, bytes: sample.bytes },
    notes,
  };
}

function addManifestSignals(manifests: readonly Manifest[], signals: Signals): void {
  for (const manifest of manifests) {
    if (manifest.bin) addSignal(signals, "manifest.bin", manifest.path);
    for (const fact of manifest.facts ?? []) addSignal(signals, `manifest.${fact}`, manifest.path);
  }
}

function emptySummary(base: Pick<CodebaseSummary, "root" | "files">, notes: string[]): CodebaseSummary {
  return {
    ...base,
    empty: true,
    languages: [],
    manifests: [],
    keyDependencies: [],
    archetype: { kind: "unknown", matches: [] },
    conventions: { testing: [], logging: [], metrics: [], tracing: [], config: [], validation: [], errors: [], di: [] },
    layout: { topLevel: [], notable: [], packages: [] },
    sample: { files: 0, bytes: 0 },
    notes,
  };
}

async function assertDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new OttoError("analysis_root_missing", `Cannot analyse ${path}: it is not a directory.`, "Run otto from the repository root.");
  }
}

/** `{ maxFiles: undefined }` must not override a default. */
function definedOnly(options: AnalyzeOptions): Partial<typeof DEFAULT_ANALYZE_OPTIONS> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(DEFAULT_ANALYZE_OPTIONS) as (keyof typeof DEFAULT_ANALYZE_OPTIONS)[]) {
    const value = options[key];
    if (typeof value === "number") out[key] = value;
  }
  return out;
}
