import { findTable, inlineField, readTomlLite, tomlString, tomlStrings } from "./read-toml-lite.ts";
import type { Dependency, Manifest } from "./types.ts";

/**
 * Cargo.toml → manifest. Handles `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`,
 * target-specific tables and the dotted form `[dependencies.serde]`.
 */
export function parseCargoToml(path: string, text: string): Manifest {
  const tables = readTomlLite(text);
  const pkg = findTable(tables, "package");
  const manifest: Manifest = { path, kind: "Cargo.toml", dependencies: [] };
  const name = tomlString(pkg?.entries.get("name"));
  if (name) manifest.name = name;
  const edition = tomlString(pkg?.entries.get("edition"));
  const rustVersion = tomlString(pkg?.entries.get("rust-version"));
  if (rustVersion || edition) manifest.toolchain = rustVersion ? `rust ${rustVersion}` : `edition ${edition}`;
  const members = tomlStrings(findTable(tables, "workspace")?.entries.get("members"));
  if (members.length > 0) manifest.workspaces = members;

  const facts: string[] = [];
  for (const table of tables) {
    if (table.name === "bin" && table.array) manifest.bin = true;
    if (table.name === "lib") facts.push("cargo-lib");
    const section = /(?:^|\.)(dev-|build-)?dependencies(?:\.(.+))?$/.exec(table.name);
    if (!section || table.array) continue;
    const dev = section[1] !== undefined;
    if (section[2]) {
      // [dependencies.serde] version = "1"
      add(manifest, section[2], tomlString(table.entries.get("version")), dev);
      continue;
    }
    for (const [key, raw] of table.entries) {
      // `serde.workspace = true` arrives as the key `serde.workspace`.
      add(manifest, key.replace(/\.(workspace|version|features)$/, ""), tomlString(raw) ?? inlineField(raw, "version"), dev);
    }
  }
  if (facts.length > 0) manifest.facts = facts;
  return manifest;
}

function add(manifest: Manifest, name: string, version: string | undefined, dev: boolean): void {
  if (manifest.dependencies.some((d) => d.name === name && d.dev === dev)) return;
  const dependency: Dependency = { name, ecosystem: "cargo", dev, manifest: manifest.path };
  if (version) dependency.version = version;
  manifest.dependencies.push(dependency);
}
