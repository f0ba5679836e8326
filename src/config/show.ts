import { redact, isRecord } from "../core/index.ts";
import { formatKeyPath } from "./keypath.ts";
import type { LoadedConfig } from "./load.ts";
import type { Config } from "./schema.ts";
import { maskSecrets } from "./secrets.ts";

/** "user (/home/me/.config/otto/otto.jsonc)" → "user": the files are listed once above the config. */
function shortSource(source: string | undefined): string {
  return (source ?? "default").replace(/^(user|repo) \(.*\)$/, "$1");
}

function renderObject(
  value: Record<string, unknown>,
  path: string[],
  indent: string,
  sources: Record<string, string>,
  out: string[],
): void {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  entries.forEach(([key, child], i) => {
    const comma = i < entries.length - 1 ? "," : "";
    const childPath = [...path, key];
    const head = `${indent}  ${JSON.stringify(key)}: `;
    if (isRecord(child) && Object.keys(child).length > 0) {
      out.push(`${head}{`);
      renderObject(child, childPath, `${indent}  `, sources, out);
      out.push(`${indent}  }${comma}`);
      return;
    }
    const comment = isRecord(child) ? "nothing set" : shortSource(sources[formatKeyPath(childPath)]);
    const multiline = Array.isArray(child) && child.some((item) => typeof item === "object" && item !== null);
    if (!multiline) {
      const inline = JSON.stringify(child).replace(/","/g, '", "');
      out.push(`${head}${inline}${comma}  // ${comment}`);
      return;
    }
    const lines = JSON.stringify(child, null, 2).split("\n");
    out.push(`${head}${lines[0] ?? "["}  // ${comment}`);
    for (const line of lines.slice(1, -1)) out.push(`${indent}  ${line}`);
    out.push(`${indent}  ${lines[lines.length - 1] ?? "]"}${comma}`);
  });
}

/**
 * spec.verify / pr.verify as the flows resolve them (src/analysis resolveChecks): the configured
 * list, or the project's detected checks. Structural, so config does not depend on analysis.
 */
export interface ShownChecks {
  key: string;
  origin: "configured" | "detected";
  checks: { command: string; source: string }[];
  notes: string[];
}

/** "- spec.verify (detected): npm test (package.json scripts.test)". */
export function renderChecksSection(list: readonly ShownChecks[]): string[] {
  if (list.length === 0) return [];
  const lines = ["", "Checks (what execute, build and the PR flows run; unset keys are detected in this project):"];
  for (const c of list) {
    const what =
      c.checks.length > 0
        ? c.checks.map((x) => (c.origin === "configured" ? x.command : `${x.command} (${x.source})`)).join(", ")
        : c.origin === "configured"
          ? "none ([])"
          : "none found";
    lines.push(`- ${c.key} (${c.origin}): ${what}`);
    if (c.origin === "detected" && c.checks.length === 0) lines.push(...c.notes.map((n) => `  - ${n}`));
  }
  return lines;
}

function fileLine(scope: string, file: string | undefined, found: boolean): string {
  if (!file) return `- ${scope}: (not inside a git repository)`;
  return `- ${scope}: ${file}${found ? "" : " (not found)"}`;
}

/** The resolved config as commented JSONC inside markdown, secrets masked, each key's source as a comment. */
export function renderConfigJsonc(loaded: LoadedConfig, checks: readonly ShownChecks[] = []): string {
  const lines: string[] = [];
  renderObject(maskSecrets(loaded.config), [], "", loaded.sources, lines);
  const text = [
    "Config files (repo wins over user, environment variables win over both):",
    fileLine("user", loaded.files.user, loaded.found.user),
    fileLine("repo", loaded.files.repo, loaded.found.repo),
    "",
    "```jsonc",
    "{",
    ...lines,
    "}",
    "```",
    ...renderChecksSection(checks),
  ].join("\n");
  return redact(text, loaded.secrets);
}

/** The resolved config as JSON (secrets masked) with its sources and files. */
export function renderConfigJson(
  loaded: LoadedConfig,
  checks: readonly ShownChecks[] = [],
  sandbox?: { mode: string; active: string },
): string {
  const { config, sources, files, found } = loaded;
  const resolved = Object.fromEntries(
    checks.map((c) => [c.key, { origin: c.origin, checks: c.checks, ...(c.notes.length ? { notes: c.notes } : {}) }]),
  );
  return redact(
    JSON.stringify(
      {
        files,
        found,
        config: maskSecrets(config),
        sources,
        ...(checks.length ? { checks: resolved } : {}),
        ...(sandbox ? { sandbox } : {}),
      },
      null,
      2,
    ),
    loaded.secrets,
  );
}

/** What each unset model role means, so a newcomer sees which flows need it before one fails. */
export function renderUnsetRoles(config: Pick<Config, "models">): string[] {
  const { primary, secondary, reviewers, fix } = config.models;
  const lines: string[] = [];
  if (!primary)
    lines.push(
      "- models.primary: unset. Commands you run use your session's model instead (and say so), but the PR watcher (/otto-pr watch start) runs in the background with no session: its fixes and answers need models.primary or models.fix.",
    );
  if (!secondary)
    lines.push(
      `- models.secondary: unset. Critiques and reviews use ${primary ? "your session's model" : "your session's model, the same model that wrote what they review"}: no second opinion.`,
    );
  if (!reviewers) lines.push("- models.reviewers: unset. /pr-review --loop reviews with models.secondary alone.");
  if (!fix) lines.push(`- models.fix: unset. Fixes use ${primary ? "models.primary" : "models.primary, which is unset too"}.`);
  if (lines.length === 0) return [];
  return ["", "Model roles not set (set one: /otto-config set models.primary <provider/model>; `opencode models` lists them):", ...lines];
}
