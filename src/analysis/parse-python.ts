import { findTable, inlineField, readTomlLite, tomlString, tomlStrings, type TomlTable } from "./read-toml-lite.ts";
import type { Dependency, Manifest } from "./types.ts";

/** Optional-dependency groups and dependency groups whose names say "not at runtime". */
const DEV_GROUP = /^(dev|develop|development|test|tests|testing|lint|docs|typing|ci)$/i;

/** pyproject.toml (PEP 621, PEP 735 and Poetry tables) → manifest. */
export function parsePyproject(path: string, text: string): Manifest {
  const tables = readTomlLite(text);
  const project = findTable(tables, "project");
  const poetry = findTable(tables, "tool.poetry");
  const manifest: Manifest = { path, kind: "pyproject.toml", dependencies: [] };
  const name = tomlString(project?.entries.get("name")) ?? tomlString(poetry?.entries.get("name"));
  if (name) manifest.name = name;
  const requires = tomlString(project?.entries.get("requires-python"));
  if (requires) manifest.toolchain = `python ${requires}`;

  const add = (specs: string[], dev: boolean) => {
    for (const spec of specs) {
      const dependency = parseRequirement(spec, path, dev);
      if (dependency) manifest.dependencies.push(dependency);
    }
  };
  add(tomlStrings(project?.entries.get("dependencies")), false);
  for (const group of ["project.optional-dependencies", "dependency-groups"]) {
    for (const [key, raw] of findTable(tables, group)?.entries ?? []) add(tomlStrings(raw), DEV_GROUP.test(key));
  }
  for (const table of tables) {
    const poetryDeps = /^tool\.poetry\.(?:(dev-)dependencies|group\.([^.]+)\.dependencies|dependencies)$/.exec(table.name);
    if (poetryDeps) addPoetry(manifest, table, poetryDeps[1] !== undefined || DEV_GROUP.test(poetryDeps[2] ?? ""));
  }

  const scripts = findTable(tables, "project.scripts") ?? findTable(tables, "tool.poetry.scripts");
  if (scripts && scripts.entries.size > 0) manifest.bin = true;
  const facts = [findTable(tables, "tool.pytest.ini_options") && "pytest-config", findTable(tables, "tool.tox") && "tox-config"].filter(
    (f): f is string => typeof f === "string",
  );
  if (facts.length > 0) manifest.facts = facts;
  return manifest;
}

function addPoetry(manifest: Manifest, table: TomlTable, dev: boolean): void {
  for (const [key, raw] of table.entries) {
    const version = tomlString(raw) ?? inlineField(raw, "version");
    if (key === "python") {
      if (version) manifest.toolchain ??= `python ${version}`;
      continue;
    }
    const dependency: Dependency = { name: normalizeName(key), ecosystem: "pypi", dev, manifest: manifest.path };
    if (version) dependency.version = version;
    manifest.dependencies.push(dependency);
  }
}

/** requirements*.txt → manifest; files named like `requirements-dev.txt` hold dev dependencies. */
export function parseRequirements(path: string, text: string): Manifest {
  const dev = /(dev|test|lint|docs)[^/]*$/i.test(path);
  const dependencies: Dependency[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/\s#.*$|^#.*$/, "").trim();
    // Options (-r, -e, --hash) and URLs name no PyPI project we can rely on.
    if (line === "" || line.startsWith("-") || /^[a-z+]+:\/\//i.test(line)) continue;
    const dependency = parseRequirement(line, path, dev);
    if (dependency) dependencies.push(dependency);
  }
  return { path, kind: "requirements.txt", dependencies };
}

/** PEP 508: `name[extra] (>=1,<2) ; marker` → name and version specifier. */
export function parseRequirement(spec: string, manifest: string, dev: boolean): Dependency | undefined {
  const match = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;@]*)/.exec(spec);
  if (!match?.[1]) return undefined;
  const dependency: Dependency = { name: normalizeName(match[1]), ecosystem: "pypi", dev, manifest };
  const version = (match[2] ?? "")
    .trim()
    .replace(/^\((.*)\)$/, "$1")
    .trim();
  if (version) dependency.version = version;
  return dependency;
}

/** PEP 503 normalisation, so `Pydantic_Settings` and `pydantic-settings` match one rule. */
function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}
