import type { CodebaseSummary, Conventions, Dependency, Finding, Manifest } from "./types.ts";

/** Prompts get a summary, not an inventory: the rendered text stays within this many lines. */
export const MAX_RENDERED_LINES = 60;

const ARCHETYPE_NAMES: Record<CodebaseSummary["archetype"]["kind"], string> = {
  "rest-api": "REST API",
  "grpc-service": "gRPC service",
  "k8s-operator": "Kubernetes controller/operator",
  cli: "CLI tool",
  "event-driven": "event-driven service",
  "frontend-app": "frontend app",
  library: "library",
  hybrid: "hybrid",
  unknown: "not determined",
};

const CATEGORIES: [keyof Conventions, string][] = [
  ["testing", "Testing"],
  ["logging", "Logging"],
  ["metrics", "Metrics"],
  ["tracing", "Tracing"],
  ["config", "Configuration"],
  ["validation", "Validation"],
  ["errors", "Error handling"],
  ["di", "Dependency injection"],
];

/** Markdown for the `codebase_summary` prompt variable. Pure: same summary, same text. */
export function renderCodebaseSummary(summary: CodebaseSummary): string {
  const lines = ["## Codebase summary", ""];
  if (summary.empty) {
    lines.push("The repository is empty: there is no existing code to follow.");
    return lines.join("\n");
  }
  lines.push(...renderOverview(summary));
  lines.push(...section("Key dependencies", renderDependencies(summary.keyDependencies)));
  const sampled = summary.sample.files > 0 ? ` (from manifests and ${summary.sample.files} sampled source files)` : "";
  lines.push(...section(`Conventions${sampled}`, renderConventions(summary.conventions)));
  lines.push(...section("Layout", renderLayout(summary)));
  lines.push(
    ...section(
      "Notes",
      summary.notes.slice(0, 5).map((note) => `- ${note}`),
    ),
  );
  if (lines.length > MAX_RENDERED_LINES) return [...lines.slice(0, MAX_RENDERED_LINES - 1), "- …"].join("\n");
  return lines.join("\n");
}

function renderOverview(summary: CodebaseSummary): string[] {
  const { archetype } = summary;
  const lines: string[] = [];
  const single = archetype.matches.length === 1 ? archetype.matches[0] : undefined;
  if (archetype.kind === "hybrid") {
    lines.push(`- **Archetype:** hybrid (${archetype.matches.map((m) => m.name).join(", ")})`);
    lines.push(...archetype.matches.map((m) => `  - ${m.name}: ${evidence(m, 3)}`));
  } else {
    lines.push(`- **Archetype:** ${ARCHETYPE_NAMES[archetype.kind]}${single ? ` — ${evidence(single, 3)}` : ""}`);
  }
  const languages = summary.languages.slice(0, 6).map((l) => `${l.name} (${l.files})`);
  if (languages.length > 0) lines.push(`- **Languages:** ${languages.join(", ")}`);
  const how = summary.files.listedBy === "git" ? "git ls-files" : "directory walk";
  lines.push(`- **Files:** ${summary.files.total}${summary.files.truncated ? "+" : ""} (${how})`);
  const manifests = summary.manifests.slice(0, 6).map(describeManifest);
  if (manifests.length > 0) {
    const more = summary.manifests.length > 6 ? `, +${summary.manifests.length - 6} more` : "";
    lines.push(`- **Manifests:** ${manifests.join("; ")}${more}`);
  }
  const scripts = summary.manifests.find((m) => m.path === "package.json")?.scripts;
  if (scripts) {
    const shown = Object.entries(scripts)
      .slice(0, 6)
      .map(([name, cmd]) => `\`${name}\`: \`${cmd}\``);
    lines.push(`- **npm scripts:** ${shown.join(", ")}`);
  }
  return lines;
}

function describeManifest(manifest: Manifest): string {
  const details = [
    manifest.name,
    manifest.moduleType === "module" ? "ESM" : undefined,
    manifest.toolchain,
    manifest.workspaces ? `workspaces ${manifest.workspaces.join(", ")}` : undefined,
  ].filter((d): d is string => d !== undefined);
  return details.length > 0 ? `${manifest.path} (${details.join(", ")})` : manifest.path;
}

function renderDependencies(deps: readonly Dependency[]): string[] {
  const byManifest = new Map<string, string[]>();
  for (const dep of deps) {
    const list = byManifest.get(dep.manifest) ?? [];
    list.push(`${dep.name}${dep.version ? ` ${dep.version}` : ""}${dep.dev ? " (dev)" : ""}`);
    byManifest.set(dep.manifest, list);
  }
  return [...byManifest].slice(0, 8).map(([manifest, list]) => `- ${manifest}: ${list.join(", ")}`);
}

function renderConventions(conventions: Conventions): string[] {
  return CATEGORIES.flatMap(([key, label]) => {
    const findings = conventions[key];
    if (findings.length === 0) return [];
    return [
      `- **${label}:** ${findings
        .slice(0, 5)
        .map((f) => `${f.name} — ${evidence(f, 2)}`)
        .join("; ")}`,
    ];
  });
}

function renderLayout({ layout }: CodebaseSummary): string[] {
  const lines = [`- Top level: ${layout.topLevel.map((t) => `${t.path === "." ? "(root files)" : t.path} ${t.files}`).join(", ")}`];
  if (layout.notable.length > 0) lines.push(`- Notable: ${layout.notable.join(", ")}`);
  if (layout.packages.length > 0) {
    const shown = layout.packages.slice(0, 12).map((p) => `${p.path} (${p.kinds.join(", ")})`);
    const more = layout.packages.length > 12 ? `, +${layout.packages.length - 12} more` : "";
    lines.push(`- Packages: ${shown.join(", ")}${more}`);
  }
  return lines;
}

function evidence(finding: Finding, max: number): string {
  const shown = finding.evidence.slice(0, max).join(", ");
  return finding.evidence.length > max ? `${shown}, …` : shown;
}

function section(title: string, body: string[]): string[] {
  return body.length === 0 ? [] : ["", `### ${title}`, ...body];
}
