import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/errors.ts";
import { assertSafeSlug } from "./slug.ts";
import { parseTasks } from "./tasks/parse-tasks.ts";
import { summarizeTasks, type TaskSummary } from "./tasks/summarize-tasks.ts";

/** The markdown files of a spec, in pipeline order. */
export const ARTIFACTS = ["requirements", "research", "design", "tasks", "questions"] as const;
export type Artifact = (typeof ARTIFACTS)[number];

/** Folders under `.otto/specs` that are not specs. */
const NOT_SPECS = new Set(["archive"]);

export interface SpecPaths extends Record<Artifact, string> {
  dir: string;
  history: string;
}

/** `<repo>/.otto/specs` */
export function specsDir(repoRoot: string): string {
  return path.join(path.resolve(repoRoot), ".otto", "specs");
}

/** The files of one spec; the slug is checked, and every path must stay inside specsDir. */
export function specPaths(repoRoot: string, slug: string): SpecPaths {
  const root = specsDir(repoRoot);
  const dir = path.join(root, assertSafeSlug(slug));
  const paths: SpecPaths = {
    dir,
    requirements: path.join(dir, "requirements.md"),
    research: path.join(dir, "research.md"),
    design: path.join(dir, "design.md"),
    tasks: path.join(dir, "tasks.md"),
    questions: path.join(dir, "questions.md"),
    history: path.join(dir, "history"),
  };
  for (const p of [paths.dir, ...ARTIFACTS.map((a) => paths[a]), paths.history]) {
    const rel = path.relative(root, p);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) {
      throw new OttoError("invalid_slug", `Spec '${slug}' resolves outside ${root}.`, "Run /otto-spec list to see the spec slugs");
    }
  }
  return paths;
}

export interface SpecEntry {
  slug: string;
  artifacts: Record<Artifact, boolean>;
  /** Present when tasks.md exists. */
  tasks?: TaskSummary;
}

/** Which artifacts of a spec exist on disk. */
export function readArtifacts(repoRoot: string, slug: string): Set<Artifact> {
  const paths = specPaths(repoRoot, slug);
  return new Set(ARTIFACTS.filter((a) => isFile(paths[a])));
}

/** Every spec under `.otto/specs` (not `archive/`, not hidden folders), sorted by slug. [] when there are none. */
export function listSpecs(repoRoot: string): SpecEntry[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(specsDir(repoRoot), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !NOT_SPECS.has(e.name) && /^[a-z0-9][a-z0-9-]*$/.test(e.name))
      .map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names.sort().map((slug) => {
    const present = readArtifacts(repoRoot, slug);
    const artifacts = Object.fromEntries(ARTIFACTS.map((a) => [a, present.has(a)])) as Record<Artifact, boolean>;
    const entry: SpecEntry = { slug, artifacts };
    if (present.has("tasks")) {
      entry.tasks = summarizeTasks(parseTasks(fs.readFileSync(specPaths(repoRoot, slug).tasks, "utf8")).tasks);
    }
    return entry;
  });
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
