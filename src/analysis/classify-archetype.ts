import { ARCHETYPE_RULES } from "./archetype-rules.ts";
import { evidenceFor } from "./match-rules.ts";
import type { Archetype, ArchetypeMatch, Dependency, Manifest, Signals } from "./types.ts";

/** Files that make a project something you run rather than something you import. */
const ENTRYPOINT = /(^|\/)(main\.go|__main__\.py|src\/main\.rs)$|(^|\/)cmd\//;

export interface ArchetypeInput {
  deps: readonly Dependency[];
  files: readonly string[];
  signals: Signals;
  manifests: readonly Manifest[];
}

/**
 * Strong matches decide; weak ones (stdlib servers, API specs, argparse) only when nothing strong
 * matched. Several kinds make a hybrid. No markers at all: a library if there is a manifest and
 * no entrypoint, otherwise unknown.
 */
export function classifyArchetype(input: ArchetypeInput): Archetype {
  const ctx = { deps: input.deps, files: input.files, signals: input.signals, devDeps: false };
  const strong = new Map<ArchetypeMatch["kind"], ArchetypeMatch>();
  const weak = new Map<ArchetypeMatch["kind"], ArchetypeMatch>();
  for (const rule of ARCHETYPE_RULES) {
    const evidence = evidenceFor(rule, ctx);
    if (evidence.length === 0) continue;
    const into = rule.weak ? weak : strong;
    const match = into.get(rule.kind) ?? { kind: rule.kind, name: rule.name, evidence: [] };
    match.evidence.push(...evidence.filter((e) => !match.evidence.includes(e)));
    into.set(rule.kind, match);
  }
  const matches = [...(strong.size > 0 ? strong : weak).values()];
  if (matches.length > 1) return { kind: "hybrid", matches };
  if (matches[0]) return { kind: matches[0].kind, matches };
  const library = libraryMatch(input);
  return library ? { kind: "library", matches: [library] } : { kind: "unknown", matches: [] };
}

function libraryMatch({ files, manifests }: ArchetypeInput): ArchetypeMatch | undefined {
  if (manifests.length === 0 || files.some((file) => ENTRYPOINT.test(file))) return undefined;
  const evidence = ["no server, CLI, operator or frontend markers"];
  if (manifests.some((m) => m.facts?.includes("cargo-lib")) || files.includes("src/lib.rs")) evidence.push("src/lib.rs");
  evidence.push(...manifests.slice(0, 3).map((m) => (m.name ? `${m.name} (${m.path})` : m.path)));
  return { kind: "library", name: "Library", evidence };
}
