import { ARCHETYPE_RULES } from "./archetype-rules.ts";
import { CONVENTION_RULES } from "./convention-rules.ts";
import { evidenceFor, matchesPattern } from "./match-rules.ts";
import type { Conventions, Dependency, Finding, Manifest, Signals } from "./types.ts";

export interface ConventionInput {
  deps: readonly Dependency[];
  files: readonly string[];
  signals: Signals;
}

/** Every category lists only findings that have evidence; an empty list means "none seen". */
export function detectConventions(input: ConventionInput): Conventions {
  const ctx = { ...input, devDeps: true };
  const detect = (category: keyof Conventions): Finding[] =>
    CONVENTION_RULES[category].flatMap((rule) => {
      const evidence = evidenceFor(rule, ctx);
      return evidence.length > 0 ? [{ name: rule.name, evidence }] : [];
    });
  return {
    testing: detect("testing"),
    logging: detect("logging"),
    metrics: detect("metrics"),
    tracing: detect("tracing"),
    config: detect("config"),
    validation: detect("validation"),
    errors: detect("errors"),
    di: detect("di"),
  };
}

const KNOWN_PATTERNS = [...ARCHETYPE_RULES, ...Object.values(CONVENTION_RULES).flat()].flatMap((rule) => [
  ...(rule.deps ?? []),
  ...(rule.also?.deps ?? []),
]);

/**
 * Direct dependencies worth naming in a prompt: recognised runtime libraries, then other runtime
 * ones, then recognised dev tools (test frameworks). Go `// indirect` requirements never.
 */
export function pickKeyDependencies(manifests: readonly Manifest[], max: number): Dependency[] {
  const direct = manifests.flatMap((m) => m.dependencies).filter((d) => !d.indirect);
  const known = (d: Dependency) => KNOWN_PATTERNS.some((p) => matchesPattern(d, p));
  const ordered = [
    ...direct.filter((d) => !d.dev && known(d)),
    ...direct.filter((d) => !d.dev && !known(d)),
    ...direct.filter((d) => d.dev && known(d)),
  ];
  const seen = new Set<string>();
  const picked: Dependency[] = [];
  for (const dep of ordered) {
    const key = `${dep.ecosystem}:${dep.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    picked.push(dep);
    if (picked.length >= max) break;
  }
  return picked;
}
