import type { Dependency, Manifest } from "./types.ts";

/**
 * pom.xml → manifest, by pattern rather than a full XML parser: comments, `<build>` and
 * `<dependencyManagement>` are cut first so only the project's own `<dependency>` blocks remain.
 * `${property}` versions are resolved from `<properties>` when declared there.
 */
export function parsePom(path: string, text: string): Manifest {
  const xml = text.replace(/<!--[\s\S]*?-->/g, "");
  const properties = new Map<string, string>();
  for (const m of (section(xml, "properties") ?? "").matchAll(/<([\w.-]+)>\s*([^<]*?)\s*<\/\1>/g)) {
    properties.set(m[1] ?? "", m[2] ?? "");
  }
  const resolve = (value: string | undefined) => value?.replace(/\$\{([^}]+)\}/g, (whole, key: string) => properties.get(key) ?? whole);

  const manifest: Manifest = { path, kind: "pom.xml", dependencies: [] };
  const parent = section(xml, "parent");
  if (parent) addCoordinate(manifest, parent, resolve, false);
  const body = cut(cut(cut(xml, "parent"), "build"), "dependencyManagement");
  const artifact = tag(cut(cut(body, "dependencies"), "properties"), "artifactId");
  if (artifact) manifest.name = artifact;
  const java = properties.get("java.version") ?? properties.get("maven.compiler.release") ?? properties.get("maven.compiler.source");
  if (java) manifest.toolchain = `java ${java}`;
  for (const m of body.matchAll(/<dependency>([\s\S]*?)<\/dependency>/g)) {
    const block = m[1] ?? "";
    addCoordinate(manifest, block, resolve, tag(block, "scope") === "test");
  }
  return manifest;
}

function addCoordinate(manifest: Manifest, block: string, resolve: (value: string | undefined) => string | undefined, dev: boolean): void {
  const group = resolve(tag(block, "groupId"));
  const artifact = resolve(tag(block, "artifactId"));
  if (!group || !artifact) return;
  const dependency: Dependency = { name: `${group}:${artifact}`, ecosystem: "maven", dev, manifest: manifest.path };
  const version = resolve(tag(block, "version"));
  if (version) dependency.version = version;
  manifest.dependencies.push(dependency);
}

const GRADLE_DEP =
  /^\s*(implementation|api|compileOnly|runtimeOnly|kapt|annotationProcessor|testImplementation|testRuntimeOnly|testCompileOnly|integrationTestImplementation)\s*\(?\s*(?:platform\s*\(\s*)?["']([^"':\s]+):([^"':\s]+)(?::([^"'\s]+))?["']/;

/** build.gradle / build.gradle.kts → manifest from dependency configuration lines. */
export function parseGradle(path: string, text: string): Manifest {
  const manifest: Manifest = { path, kind: "build.gradle", dependencies: [] };
  for (const line of text.split(/\r?\n/)) {
    const m = GRADLE_DEP.exec(line);
    if (!m) continue;
    const dependency: Dependency = {
      name: `${m[2]}:${m[3]}`,
      ecosystem: "maven",
      dev: (m[1] ?? "").toLowerCase().includes("test"),
      manifest: path,
    };
    if (m[4]) dependency.version = m[4];
    manifest.dependencies.push(dependency);
  }
  const java = /JavaLanguageVersion\.of\(\s*(\d+)\s*\)|JavaVersion\.VERSION_(\d+(?:_\d+)?)/.exec(text);
  if (java) manifest.toolchain = `java ${(java[1] ?? java[2] ?? "").replace("_", ".")}`;
  return manifest;
}

function tag(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`).exec(xml)?.[1];
}

function section(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1];
}

function cut(xml: string, name: string): string {
  return xml.replace(new RegExp(`<${name}>[\\s\\S]*?</${name}>`, "g"), "");
}
