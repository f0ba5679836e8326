import type { Dependency, Signals } from "./types.ts";

/**
 * A detection rule: any dependency, content signal or file pattern listed is evidence. Rules are
 * data so that adding a framework is one line in archetype-rules.ts or convention-rules.ts.
 */
export interface Rule {
  name: string;
  /**
   * `ecosystem:name`. A trailing `*` matches a prefix; Go modules also match their `/vN` major
   * version paths (`go:github.com/urfave/cli` matches `github.com/urfave/cli/v2`).
   */
  deps?: string[];
  /** Whether dev dependencies count; defaults to the context's setting. */
  devDeps?: boolean;
  /** Signal id → how to describe it in evidence. */
  signals?: Record<string, string>;
  files?: { pattern: RegExp; label: string };
  /** A second rule that must also have evidence (a UI library and a bundler). */
  also?: Rule;
}

export interface RuleContext {
  deps: readonly Dependency[];
  files: readonly string[];
  signals: Signals;
  /** Default for `Rule.devDeps`. */
  devDeps: boolean;
}

export function evidenceFor(rule: Rule, ctx: RuleContext): string[] {
  const evidence = [...dependencyEvidence(rule, ctx), ...signalEvidence(rule, ctx.signals), ...fileEvidence(rule, ctx.files)];
  if (evidence.length === 0 || !rule.also) return evidence;
  const also = evidenceFor(rule.also, ctx);
  return also.length === 0 ? [] : [...evidence, ...also];
}

export function matchesPattern(dep: Dependency, pattern: string): boolean {
  const colon = pattern.indexOf(":");
  if (dep.ecosystem !== pattern.slice(0, colon)) return false;
  const name = pattern.slice(colon + 1);
  if (name.endsWith("*")) return dep.name.startsWith(name.slice(0, -1));
  if (dep.name === name) return true;
  return dep.ecosystem === "go" && dep.name.startsWith(name) && /^\/v\d+$/.test(dep.name.slice(name.length));
}

function dependencyEvidence(rule: Rule, ctx: RuleContext): string[] {
  const devDeps = rule.devDeps ?? ctx.devDeps;
  const patterns = rule.deps ?? [];
  const hits = new Map<string, Dependency[]>();
  for (const dep of ctx.deps) {
    if (dep.indirect || (dep.dev && !devDeps) || !patterns.some((p) => matchesPattern(dep, p))) continue;
    hits.set(dep.name, [...(hits.get(dep.name) ?? []), dep]);
  }
  return [...hits.values()].map((deps) => {
    const first = deps[0] as Dependency;
    const where = deps.length > 1 ? `${first.manifest}, +${deps.length - 1}` : first.manifest;
    return `${first.name}${first.version ? ` ${first.version}` : ""} (${where})`;
  });
}

function signalEvidence(rule: Rule, signals: Signals): string[] {
  return Object.entries(rule.signals ?? {}).flatMap(([id, label]) => {
    const hit = signals.get(id);
    if (!hit) return [];
    if (id.startsWith("manifest.")) return [`${label} (${hit.files.join(", ")})`];
    const names = hit.names.length > 0 ? `: ${hit.names.join(", ")}` : "";
    const where = hit.files.length === 1 ? hit.files[0] : `${hit.files.length} sampled files, e.g. ${hit.files[0]}`;
    return [`${label}${names} (${hit.count}× in ${where})`];
  });
}

function fileEvidence(rule: Rule, files: readonly string[]): string[] {
  if (!rule.files) return [];
  const { pattern, label } = rule.files;
  const matched = files.filter((file) => pattern.test(file));
  if (matched.length === 0) return [];
  return [matched.length === 1 ? (matched[0] as string) : `${label} (${matched.length} files)`];
}
