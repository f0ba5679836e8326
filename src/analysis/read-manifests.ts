import { join } from "node:path";
import { isNotTheProject } from "./list-files.ts";
import { parseCargoToml } from "./parse-cargo.ts";
import { parseGoMod } from "./parse-go-mod.ts";
import { parseGradle, parsePom } from "./parse-jvm.ts";
import { parsePackageJson } from "./parse-package-json.ts";
import { parsePyproject, parseRequirements } from "./parse-python.ts";
import { readHead } from "./read-head.ts";
import type { Manifest } from "./types.ts";

type Parser = (path: string, text: string) => Manifest;

const PARSERS: { test: RegExp; parse: Parser }[] = [
  { test: /(^|\/)package\.json$/, parse: parsePackageJson },
  { test: /(^|\/)go\.mod$/, parse: parseGoMod },
  { test: /(^|\/)pyproject\.toml$/, parse: parsePyproject },
  { test: /(^|\/)requirements([-_.][\w.-]*)?\.txt$|(^|\/)requirements\/[\w.-]+\.txt$/, parse: parseRequirements },
  { test: /(^|\/)Cargo\.toml$/, parse: parseCargoToml },
  { test: /(^|\/)pom\.xml$/, parse: parsePom },
  { test: /(^|\/)build\.gradle(\.kts)?$/, parse: parseGradle },
];

/** Enough for a large monorepo's packages; the rest are named in a note. */
const MAX_MANIFESTS = 40;

export function findManifestPaths(files: readonly string[]): string[] {
  return files
    .filter((file) => !isNotTheProject(file) && PARSERS.some((p) => p.test.test(file)))
    .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** Reads and parses the shallowest manifests; a broken one becomes a note, not a failure. */
export async function readManifests(
  root: string,
  files: readonly string[],
  maxBytesPerFile: number,
): Promise<{ manifests: Manifest[]; notes: string[] }> {
  const paths = findManifestPaths(files);
  const notes: string[] = [];
  if (paths.length > MAX_MANIFESTS) {
    notes.push(`Read the ${MAX_MANIFESTS} shallowest of ${paths.length} manifests.`);
  }
  const results = await Promise.all(
    paths.slice(0, MAX_MANIFESTS).map(async (path) => {
      const text = await readHead(join(root, path), maxBytesPerFile);
      if (text === undefined) return undefined;
      return parseManifest(path, text, notes);
    }),
  );
  return { manifests: results.filter((m): m is Manifest => m !== undefined), notes };
}

export function parseManifest(path: string, text: string, notes: string[]): Manifest | undefined {
  const parser = PARSERS.find((p) => p.test.test(path));
  if (!parser) return undefined;
  try {
    return parser.parse(path, text);
  } catch (error) {
    notes.push(`Could not parse ${path}: ${error instanceof Error ? error.message : String(error)}.`);
    return undefined;
  }
}

function depth(path: string): number {
  return path.split("/").length;
}
