import type { Layout, Manifest, ManifestKind } from "./types.ts";

/** Files a newcomer (or a model) should know exist. One match shows the path, several a count. */
const NOTABLE: { pattern: RegExp; label: string }[] = [
  { pattern: /^README(\.\w+)?$/i, label: "README" },
  { pattern: /^(AGENTS|CLAUDE|CONTRIBUTING)\.md$/i, label: "contributor guides" },
  { pattern: /^(GNU)?makefile$/i, label: "Makefile" },
  { pattern: /^justfile$|^Taskfile\.ya?ml$/i, label: "task runner" },
  { pattern: /^([^/]+\/)?([\w.-]+\.)?Dockerfile(\.[\w-]+)?$/, label: "Dockerfiles" },
  { pattern: /^(docker-)?compose[\w.-]*\.ya?ml$/, label: "compose files" },
  { pattern: /^\.github\/workflows\/[^/]+\.ya?ml$/, label: ".github/workflows" },
  { pattern: /^\.gitlab-ci\.yml$|^Jenkinsfile$|^azure-pipelines\.ya?ml$|^\.circleci\/config\.yml$/, label: "CI config" },
  { pattern: /^docs?\//, label: "docs/" },
  { pattern: /(^|\/)Chart\.yaml$/, label: "Helm charts" },
  { pattern: /^(PROJECT|skaffold\.yaml|Tiltfile|go\.work)$/, label: "workspace/tooling files" },
  { pattern: /(^|\/)(openapi|swagger)[^/]*\.(ya?ml|json)$/, label: "OpenAPI specs" },
  { pattern: /^\.golangci\.ya?ml$|^eslint\.config\.\w+$|^\.eslintrc(\.\w+)?$|^ruff\.toml$|^rustfmt\.toml$/, label: "linter config" },
  { pattern: /^\.pre-commit-config\.yaml$/, label: "pre-commit" },
];

const MAX_TOP_LEVEL = 12;
const MAX_PACKAGES = 30;

export function summarizeLayout(files: readonly string[], manifests: readonly Manifest[]): Layout {
  const counts = new Map<string, number>();
  for (const file of files) {
    const slash = file.indexOf("/");
    const top = slash === -1 ? "." : `${file.slice(0, slash)}/`;
    counts.set(top, (counts.get(top) ?? 0) + 1);
  }
  const topLevel = [...counts]
    .map(([path, n]) => ({ path, files: n }))
    .sort((a, b) => b.files - a.files || a.path.localeCompare(b.path))
    .slice(0, MAX_TOP_LEVEL);

  const notable = NOTABLE.flatMap(({ pattern, label }) => {
    const matched = files.filter((file) => pattern.test(file));
    if (matched.length === 0) return [];
    return [matched.length === 1 ? (matched[0] as string) : `${label} (${matched.length} files)`];
  });

  const byDir = new Map<string, ManifestKind[]>();
  for (const manifest of manifests) {
    const dir = manifest.path.includes("/") ? manifest.path.slice(0, manifest.path.lastIndexOf("/")) : "";
    if (dir === "") continue;
    const kinds = byDir.get(dir) ?? [];
    if (!kinds.includes(manifest.kind)) kinds.push(manifest.kind);
    byDir.set(dir, kinds);
  }
  const packages = [...byDir]
    .map(([path, kinds]) => ({ path, kinds }))
    .sort((a, b) => a.path.localeCompare(b.path))
    .slice(0, MAX_PACKAGES);
  return { topLevel, notable, packages };
}
