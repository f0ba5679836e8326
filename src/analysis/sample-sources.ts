import { join } from "node:path";
import { isSourceFile } from "./detect-languages.ts";
import { isNotTheProject } from "./list-files.ts";
import { readHead } from "./read-head.ts";
import { scanSource } from "./scan-source.ts";
import type { Signals } from "./types.ts";

const GENERATED = /(^|\/)zz_generated[^/]*\.go$|\.pb(\.gw)?\.go$|_pb2(_grpc)?\.py$|\.min\.js$|\.d\.ts$/;
const ENTRYPOINT =
  /(^|\/)cmd\/|(^|\/)(main\.(go|py|rs|ts|js)|__main__\.py|app\.(py|ts|js)|server\.(ts|js|go)|index\.(ts|js)|cli\.(ts|js|py)|lib\.rs|manage\.py|\w*Application\.(java|kt))$/;
const HOTSPOT = /(^|\/)[^/]*(log|error|config|setting|metric|telemetry|tracing|otel|wire|container|manager|controller)[^/]*$/i;
export const TEST_FILE =
  /(_test\.go|\.(test|spec)\.[cm]?[jt]sx?|(^|\/)test_[^/]*\.py|_test\.py|Tests?\.(java|kt))$|(^|\/)(__tests__|tests?|spec)\/[^/]*\.\w+$/;

/**
 * Which sources to read, deterministically: entrypoints, then files whose names suggest
 * logging/errors/config, then tests, then the rest; each group spread across directories so a
 * big package does not crowd out the others.
 */
export function chooseSample(files: readonly string[], max: number): string[] {
  const candidates = files.filter((f) => isSourceFile(f) && !isNotTheProject(f) && !GENERATED.test(f));
  const tiers: string[][] = [[], [], [], []];
  for (const file of candidates) {
    const tier = ENTRYPOINT.test(file) ? 0 : TEST_FILE.test(file) ? 2 : HOTSPOT.test(file) ? 1 : 3;
    tiers[tier]?.push(file);
  }
  const quotas = [Math.ceil(max / 4), Math.ceil(max / 4), Math.ceil(max / 5), max];
  const chosen = new Set<string>();
  const spreadTiers = tiers.map(spread);
  // First each tier up to its quota, then whatever is left in tier order.
  const ordered = [...spreadTiers.flatMap((tier, i) => tier.slice(0, quotas[i])), ...spreadTiers.flat()];
  for (const file of ordered) {
    if (chosen.size >= max) break;
    chosen.add(file);
  }
  return [...chosen];
}

/** Round-robin over parent directories. */
function spread(paths: readonly string[]): string[] {
  const byDir = new Map<string, string[]>();
  for (const path of [...paths].sort()) {
    const dir = path.slice(0, Math.max(path.lastIndexOf("/"), 0));
    const group = byDir.get(dir);
    if (group) group.push(path);
    else byDir.set(dir, [path]);
  }
  const groups = [...byDir.values()];
  const out: string[] = [];
  for (let i = 0; out.length < paths.length; i++) {
    for (const group of groups) if (group[i] !== undefined) out.push(group[i] as string);
  }
  return out;
}

export interface SampleOptions {
  maxSampleFiles: number;
  maxBytesPerFile: number;
  deadline: number;
  now: () => number;
}

/** Reads the chosen sources (bounded per file and by the deadline) and scans them for signals. */
export async function sampleSources(
  root: string,
  files: readonly string[],
  signals: Signals,
  options: SampleOptions,
): Promise<{ files: number; bytes: number; notes: string[] }> {
  const chosen = chooseSample(files, options.maxSampleFiles);
  const notes: string[] = [];
  // Small batches keep a few reads in flight without opening hundreds of handles at once.
  const batchSize = 8;
  let read = 0;
  let bytes = 0;
  for (let i = 0; i < chosen.length; i += batchSize) {
    if (options.now() > options.deadline) {
      notes.push(`Convention sampling stopped at the time budget after ${i} of ${chosen.length} source files.`);
      break;
    }
    const batch = chosen.slice(i, i + batchSize);
    const texts = await Promise.all(batch.map((file) => readHead(join(root, file), options.maxBytesPerFile)));
    texts.forEach((text, j) => {
      const file = batch[j];
      if (text === undefined || file === undefined) return;
      read += 1;
      bytes += Buffer.byteLength(text);
      scanSource(file, text, signals);
    });
  }
  return { files: read, bytes, notes };
}
