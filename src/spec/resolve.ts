import { OttoError } from "../core/errors.ts";
import { assertSafeSlug } from "./slug.ts";

/** A spec to choose from: its slug, or a listSpecs entry (whose artifacts are counted in messages). */
export type SpecCandidate = string | { slug: string; artifacts?: Partial<Record<string, boolean>> };

/**
 * Which spec a command works on: the `--spec` value when it is
 * an exact slug or a unique prefix; with no flag, the only spec. Anything else is an error that
 * lists the candidates, never a guess.
 */
export function resolveSpec(specs: readonly SpecCandidate[], flag?: string): string {
  const candidates = specs.map((s) => (typeof s === "string" ? { slug: s } : s));
  const slugs = candidates.map((c) => c.slug);
  if (flag !== undefined) assertSafeSlug(flag);
  if (candidates.length === 0) {
    throw new OttoError(
      "spec_not_found",
      "No specs found in .otto/specs.",
      'Run /otto-build plan "<prompt>" (requirements → research → design → tasks, unattended), or /otto-spec add "<prompt>" to go stage by stage',
    );
  }
  const lines = (list: typeof candidates): string => {
    const width = Math.max(...list.map((c) => c.slug.length));
    return list.map((c) => `  ${c.slug.padEnd(width)}${c.artifacts ? `  (${plural(countTrue(c.artifacts), "artifact")})` : ""}`).join("\n");
  };

  if (flag === undefined) {
    const [only] = candidates;
    if (only && candidates.length === 1) return only.slug;
    throw new OttoError(
      "spec_ambiguous",
      `Multiple specs found, specify one with --spec:\n${lines(candidates)}`,
      `Pass --spec <slug> (a unique prefix is enough), e.g. --spec ${slugs[0]}`,
    );
  }
  if (slugs.includes(flag)) return flag;
  const matches = candidates.filter((c) => c.slug.startsWith(flag));
  const [match] = matches;
  if (match && matches.length === 1) return match.slug;
  if (matches.length > 1) {
    throw new OttoError(
      "spec_ambiguous",
      `'${flag}' matches ${matches.length} specs:\n${lines(matches)}`,
      `Pass more of the slug, e.g. --spec ${match?.slug}`,
    );
  }
  throw new OttoError(
    "spec_not_found",
    `No spec matches '${flag}'. The specs are:\n${lines(candidates)}`,
    "Pass one of these with --spec, or run /otto-spec list",
  );
}

function countTrue(flags: Partial<Record<string, boolean>>): number {
  return Object.values(flags).filter(Boolean).length;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
