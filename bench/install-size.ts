/**
 * The installed size of the published package, as a markdown section for docs/benchmarks.md:
 * `npm pack` of the checkout, `npm install --omit=dev --ignore-scripts <tarball>` into an empty
 * project (what a user's OpenCode installs), then the disk usage of node_modules (as `du` counts
 * it: allocated blocks, directories included) and its ten largest packages. `benchInstallSize()` is
 * what bench/run.ts calls; run alone with `node --import tsx bench/install-size.ts [--write]`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import { installTarball, npmVersion, packPackage } from "../test/support/package.ts";

/** The budget for a user's install of otto. */
const TARGET_BYTES = 20 * 1024 * 1024;
const HEADING = "## Install size";

interface Usage {
  /** Allocated bytes (du). */
  disk: number;
  /** Sum of file sizes (what npm and packagephobia report). */
  apparent: number;
  files: number;
}

const add = (a: Usage, b: Usage): Usage => ({ disk: a.disk + b.disk, apparent: a.apparent + b.apparent, files: a.files + b.files });

/** Usage of `dir`; `skip` names subdirectories left out (a package's own nested node_modules). */
function usage(dir: string, skip: (entry: string) => boolean = () => false): Usage {
  const self = fs.lstatSync(dir);
  let total: Usage = { disk: self.blocks * 512, apparent: 0, files: 0 };
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip(file)) total = add(total, usage(file));
      continue;
    }
    const stat = fs.lstatSync(file);
    total = add(total, { disk: stat.blocks * 512, apparent: stat.size, files: 1 });
  }
  return total;
}

/** Every installed package (name as its path under node_modules) with its size, nested node_modules apart. */
function packages(nodeModules: string, prefix = ""): Array<{ name: string; usage: Usage }> {
  const out: Array<{ name: string; usage: Usage }> = [];
  const visit = (dir: string, name: string) => {
    const nested = path.join(dir, "node_modules");
    out.push({ name, usage: usage(dir, (sub) => sub === nested) });
    if (fs.existsSync(nested)) out.push(...packages(nested, `${name} › `));
  };
  for (const entry of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dir = path.join(nodeModules, entry.name);
    if (entry.name.startsWith("@")) {
      for (const scoped of fs.readdirSync(dir, { withFileTypes: true })) {
        if (scoped.isDirectory()) visit(path.join(dir, scoped.name), `${prefix}${entry.name}/${scoped.name}`);
      }
    } else {
      visit(dir, `${prefix}${entry.name}`);
    }
  }
  return out;
}

/** Where `name` resolves from the package in `from` (Node's lookup: each ancestor's node_modules). */
function resolvePackage(name: string, from: string, root: string): string | undefined {
  for (let dir = from; dir.startsWith(root); dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
  }
  return undefined;
}

/** The package dirs `dir` needs at run time: itself and its (optional) dependencies, transitively. */
function closure(dir: string, root: string, seen = new Set<string>()): Set<string> {
  if (seen.has(dir)) return seen;
  seen.add(dir);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
    const found = resolvePackage(name, dir, root);
    if (found) closure(found, root, seen);
  }
  return seen;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number): string => `${Math.round(bytes / 1024)} KB`;

export async function benchInstallSize(log: (line: string) => void = () => undefined): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-install-size-"));
  try {
    log("npm pack …");
    const packed = await packPackage(dir);
    const tarball = packed.tarball ?? "";
    const project = path.join(dir, "project");
    log(`npm install --omit=dev ${path.basename(tarball)} …`);
    await installTarball(tarball, project);
    const nodeModules = path.join(project, "node_modules");
    const total = usage(nodeModules);
    const all = packages(nodeModules);
    const top = [...all].sort((a, b) => b.usage.disk - a.usage.disk).slice(0, 10);
    const openapiTypes = all.filter((p) => p.name.endsWith("@octokit/openapi-types")).length;
    const host = ["@opencode-ai/plugin", "@opencode-ai/sdk", "effect"].filter((n) =>
      all.some((p) => p.name === n || p.name.endsWith(` › ${n}`)),
    );
    const ok = total.disk <= TARGET_BYTES;
    // What each of otto's own dependencies weighs with everything it pulls in (shared packages
    // count in each): the levers, should the budget need them.
    const otto = path.join(nodeModules, "opencode-otto");
    const direct = Object.keys(
      (JSON.parse(fs.readFileSync(path.join(otto, "package.json"), "utf8")) as { dependencies?: Record<string, string> }).dependencies ??
        {},
    );
    const trees = direct
      .map((name) => {
        const found = resolvePackage(name, otto, project);
        const dirs = found ? [...closure(found, project)] : [];
        const size = dirs.reduce((sum, d) => sum + usage(d, (sub) => sub === path.join(d, "node_modules")).disk, 0);
        return { name, size, count: dirs.length };
      })
      .sort((a, b) => b.size - a.size);
    return [
      HEADING,
      "",
      `Written by \`npm run bench\` (or \`node --import tsx bench/install-size.ts --write\`) on ${new Date().toISOString().slice(0, 10)}, npm ${await npmVersion()}, Node ${process.version}, ${os.platform()}: \`npm pack\`, then \`npm install --omit=dev --ignore-scripts <tarball>\` into an empty project, as OpenCode installs a plugin.`,
      "",
      "| measure | value |",
      "|---|---|",
      `| tarball | ${kb(fs.statSync(tarball).size)}, ${packed.files.length} files, ${kb(packed.unpackedSize)} unpacked |`,
      `| packages installed (otto included) | ${all.length} |`,
      `| files in node_modules | ${total.files} |`,
      `| sum of file sizes | ${mb(total.apparent)} |`,
      `| **disk usage of node_modules (du)** | **${mb(total.disk)}** (target ≤ ${mb(TARGET_BYTES)}: ${ok ? "met" : "NOT met"}; before: 24.9 MB, with handlebars and its uglify-js, source-map and neo-async) |`,
      `| copies of \`@octokit/openapi-types\` | ${openapiTypes} |`,
      `| \`@opencode-ai/plugin\`, \`@opencode-ai/sdk\`, \`effect\` installed | ${host.length ? host.join(", ") : "none"} |`,
      "",
      "The ten largest packages (disk usage, without their own nested node_modules):",
      "",
      "| package | disk | files |",
      "|---|---|---|",
      ...top.map((p) => `| \`${p.name}\` | ${mb(p.usage.disk)} | ${p.usage.files} |`),
      "",
      "Otto's dependencies with everything each pulls in (disk usage; a package shared by two trees counts in both):",
      "",
      "| dependency | disk | packages |",
      "|---|---|---|",
      ...trees.slice(0, 6).map((t) => `| \`${t.name}\` | ${mb(t.size)} | ${t.count} |`),
      "",
    ].join("\n");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function writeSection(section: string): void {
  writeBenchSection(HEADING, section);
}

runStandalone(import.meta.url, benchInstallSize, writeSection);
