import type { Dependency, Manifest } from "./types.ts";
import { isRecord } from "../core/index.ts";

/** package.json → manifest. Throws on invalid JSON; the caller turns that into a note. */
export function parsePackageJson(path: string, text: string): Manifest {
  const data: unknown = JSON.parse(text);
  if (!isRecord(data)) throw new Error("expected a JSON object");
  const dependencies: Dependency[] = [...depsOf(data.dependencies, path, false), ...depsOf(data.devDependencies, path, true)];
  const manifest: Manifest = { path, kind: "package.json", dependencies };
  if (typeof data.name === "string") manifest.name = data.name;
  if (typeof data.type === "string") manifest.moduleType = data.type;
  const node = isRecord(data.engines) ? data.engines.node : undefined;
  if (typeof node === "string") manifest.toolchain = `node ${node}`;
  const scripts = stringRecord(data.scripts);
  if (Object.keys(scripts).length > 0) manifest.scripts = scripts;
  const workspaces = workspacesOf(data.workspaces);
  if (workspaces.length > 0) manifest.workspaces = workspaces;
  if (typeof data.bin === "string" || (isRecord(data.bin) && Object.keys(data.bin).length > 0)) manifest.bin = true;
  const facts = Object.values(scripts).some((script) => /\bnode\b.*--test\b/.test(script)) ? ["node-test-script"] : [];
  if (facts.length > 0) manifest.facts = facts;
  return manifest;
}

function depsOf(value: unknown, manifest: string, dev: boolean): Dependency[] {
  return Object.entries(stringRecord(value)).map(([name, version]) => ({
    name,
    version,
    ecosystem: "npm" as const,
    dev,
    manifest,
  }));
}

function workspacesOf(value: unknown): string[] {
  // npm/yarn accept an array, yarn classic also `{ packages: [...] }`.
  const list = isRecord(value) ? value.packages : value;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}
