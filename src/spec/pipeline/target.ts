import path from "node:path";
import { checkGate, type Stage } from "../gates.ts";
import { listSpecs, readArtifacts, specPaths, type Artifact, type SpecPaths } from "../layout.ts";
import { resolveSpec } from "../resolve.ts";

export interface SpecTarget {
  slug: string;
  paths: SpecPaths;
  present: Set<Artifact>;
  /** Turns an absolute path into one relative to the repository, for output. */
  rel: (file: string) => string;
}

/**
 * The spec a command works on: `--spec` (exact slug or unique prefix, checked against path
 * traversal) or the only spec, then the stage's artifact gate.
 */
export function resolveTarget(repoRoot: string, flag: string | undefined, stage: Stage): SpecTarget {
  const slug = resolveSpec(listSpecs(repoRoot), flag);
  const present = readArtifacts(repoRoot, slug);
  checkGate(stage, present, slug);
  return { slug, paths: specPaths(repoRoot, slug), present, rel: relativeTo(repoRoot) };
}

export function relativeTo(repoRoot: string): (file: string) => string {
  return (file) => path.relative(repoRoot, file) || ".";
}

/** The command that comes after a stage, as the output's last line. */
export function nextStepAfter(stage: "requirements" | "research" | "design" | "tasks", slug: string): string {
  switch (stage) {
    case "requirements":
      return `/otto-spec research --spec ${slug}`;
    case "research":
      return `/otto-spec design --spec ${slug}`;
    case "design":
      return `/otto-spec task generate --spec ${slug}`;
    case "tasks":
      return `/otto-spec task list --spec ${slug}`;
  }
}
