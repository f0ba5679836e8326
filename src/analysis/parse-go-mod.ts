import type { Dependency, Manifest } from "./types.ts";

/** go.mod → manifest: module path, go/toolchain version, `require` lines (single and blocks). */
export function parseGoMod(path: string, text: string): Manifest {
  const manifest: Manifest = { path, kind: "go.mod", dependencies: [] };
  let block: string | undefined;
  for (const rawLine of text.split(/\r?\n/)) {
    const indirect = /\/\/\s*indirect\b/.test(rawLine);
    const line = rawLine.replace(/\/\/.*$/, "").trim();
    if (line === "") continue;
    if (block) {
      if (line === ")") block = undefined;
      else if (block === "require") addRequire(manifest, line, indirect);
      continue;
    }
    const open = /^(\w+)\s*\($/.exec(line);
    if (open) {
      block = open[1];
      continue;
    }
    const [directive, ...rest] = line.split(/\s+/);
    if (directive === "module" && rest[0]) manifest.name = rest[0].replace(/^"|"$/g, "");
    else if (directive === "go" && rest[0]) manifest.toolchain = `go ${rest[0]}`;
    else if (directive === "require") addRequire(manifest, rest.join(" "), indirect);
  }
  return manifest;
}

function addRequire(manifest: Manifest, spec: string, indirect: boolean): void {
  const [name, version] = spec.split(/\s+/);
  if (!name) return;
  const dependency: Dependency = { name, ecosystem: "go", dev: false, manifest: manifest.path };
  if (version) dependency.version = version;
  if (indirect) dependency.indirect = true;
  manifest.dependencies.push(dependency);
}
