import { findManifestPaths } from "./read-manifests.ts";
import type { Manifest } from "./types.ts";

/** One check command of the project and where it was found, e.g. `npm test` from "package.json scripts.test". */
export interface DetectedCheck {
  command: string;
  source: string;
}

/** What detection looks at: the analysis's file listing, the root's parsed manifests, and a few root files' text. */
export interface CheckFacts {
  /** Repo-relative, `/`-separated (listFiles). */
  files: readonly string[];
  /** Parsed manifests; only the root's are used. */
  manifests: readonly Manifest[];
  /** Text of the root files detection reads (CHECK_TEXT_FILES). */
  texts: Readonly<Record<string, string>>;
}

export interface CheckDetection {
  checks: DetectedCheck[];
  /** Why nothing (or not everything) was detected, e.g. manifests found only in subdirectories. */
  notes: string[];
}

/** The files detection reads the text of, at the root only. */
export const CHECK_TEXT_FILES = ["GNUmakefile", "makefile", "Makefile", "setup.cfg"] as const;

/** npm's `npm init` placeholder: always fails, so it is no check. */
const NPM_PLACEHOLDER = /no test specified/i;

/**
 * The project's own checks, from the repository root. The rule, one source per kind:
 *
 * 1. package.json scripts `test`, `lint`, `typecheck` (or `tsc --noEmit` when typescript is a
 *    dependency, a tsconfig.json exists and there is no typecheck script), run with the package
 *    manager its lockfile names. Always kept: they are the project's own commands.
 * 2. Makefile targets `test` and `check`. A target whose recipe only calls the package manager is
 *    dropped when (1) found scripts (it wraps them).
 * 3. Toolchain conventions, only when (2) found no target, because a Makefile target is the
 *    project's own way to run them (`make test` often prepares what `go test` needs): Go
 *    (`go test ./...`, `go vet ./...`), Rust (`cargo test`), Python (tox, else nox, else pytest
 *    when it is a dependency or configured), .NET (`dotnet test`), Maven or Gradle (their
 *    wrappers when present).
 *
 * Manifests below the root are not used (the root's commands usually cover a monorepo's
 * packages); when the root has none, a note names them so the user can configure the checks.
 */
export function detectChecks(facts: CheckFacts): CheckDetection {
  const root = new Set(facts.files.filter((f) => !f.includes("/")));
  const manifests = facts.manifests.filter((m) => !m.path.includes("/"));
  const node = nodeChecks(manifests, root);
  const make = makeChecks(facts.texts, node.length > 0);
  const conventions = make.length > 0 ? [] : conventionChecks(manifests, root, facts.texts);
  const checks = dedupe([...node, ...make, ...conventions]);
  const notes: string[] = [];
  if (checks.length === 0) {
    const nested = findManifestPaths(facts.files).filter((p) => p.includes("/"));
    notes.push(
      nested.length > 0
        ? `No checks at the repository root; manifests below it (${nested.slice(0, 5).join(", ")}${nested.length > 5 ? ", …" : ""}) are not used.`
        : "No checks found (no package.json scripts, go.mod, Cargo.toml, pytest, Makefile test target, .NET, Maven or Gradle build at the repository root).",
    );
  }
  return { checks, notes };
}

type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/** The lockfile names the package manager; npm without one. */
function packageManager(root: ReadonlySet<string>): { pm: PackageManager; lockfile?: string } {
  const lockfiles: [string, PackageManager][] = [
    ["pnpm-lock.yaml", "pnpm"],
    ["yarn.lock", "yarn"],
    ["bun.lockb", "bun"],
    ["bun.lock", "bun"],
    ["package-lock.json", "npm"],
  ];
  const found = lockfiles.find(([file]) => root.has(file));
  return found ? { pm: found[1], lockfile: found[0] } : { pm: "npm" };
}

/** `bun test` is bun's own runner, not the script, so bun always says `run`. */
function runScript(pm: PackageManager, script: string): string {
  if (script === "test" && pm !== "bun") return `${pm} test`;
  return `${pm} run ${script}`;
}

function runBinary(pm: PackageManager, command: string): string {
  return { npm: "npx", pnpm: "pnpm exec", yarn: "yarn run", bun: "bunx" }[pm] + ` ${command}`;
}

function nodeChecks(manifests: readonly Manifest[], root: ReadonlySet<string>): DetectedCheck[] {
  const pkg = manifests.find((m) => m.kind === "package.json");
  if (!pkg) return [];
  const { pm } = packageManager(root);
  const scripts = pkg.scripts ?? {};
  const checks: DetectedCheck[] = [];
  for (const name of ["test", "lint", "typecheck"]) {
    const script = scripts[name];
    if (script === undefined || script.trim() === "" || (name === "test" && NPM_PLACEHOLDER.test(script))) continue;
    checks.push({ command: runScript(pm, name), source: `package.json scripts.${name}` });
  }
  const typescript = pkg.dependencies.find((d) => d.name === "typescript");
  if (scripts.typecheck === undefined && typescript && root.has("tsconfig.json")) {
    const field = typescript.dev ? "devDependencies" : "dependencies";
    checks.push({ command: runBinary(pm, "tsc --noEmit"), source: `package.json ${field}.typescript and tsconfig.json` });
  }
  return checks;
}

/** A recipe that only runs the package manager wraps package.json's scripts. */
const WRAPS_NODE = /^\s*@?-?\s*(npm|pnpm|yarn|bun|npx)\b/;

function makeChecks(texts: CheckFacts["texts"], nodeFound: boolean): DetectedCheck[] {
  // make's own lookup order.
  const name = ["GNUmakefile", "makefile", "Makefile"].find((n) => texts[n] !== undefined);
  if (!name) return [];
  const targets = makeTargets(texts[name] ?? "");
  const checks: DetectedCheck[] = [];
  for (const target of ["test", "check"]) {
    const recipe = targets.get(target);
    if (recipe === undefined) continue;
    if (nodeFound && recipe.length > 0 && recipe.every((line) => WRAPS_NODE.test(line))) continue;
    checks.push({ command: `make ${target}`, source: `${name} target ${target}` });
  }
  return checks;
}

/** Rule targets of a Makefile with their recipe lines (tab-indented). Variables (`x := …`) are not targets. */
export function makeTargets(text: string): Map<string, string[]> {
  const targets = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith("\t")) {
      if (current && line.trim() !== "" && !line.trim().startsWith("#")) current.push(line.trim());
      continue;
    }
    current = undefined;
    const rule = /^([A-Za-z0-9_.%/ -]+?)\s*::?(?!=)(.*)$/.exec(line);
    if (!rule?.[1] || line.startsWith("#") || /^\s/.test(line)) continue;
    const names = rule[1].split(/\s+/).filter((n) => n && !n.startsWith("."));
    // `target: ; recipe` on one line.
    const inline = /;(.*)$/.exec(rule[2] ?? "")?.[1]?.trim();
    const recipe: string[] = inline ? [inline] : [];
    for (const n of names) targets.set(n, targets.get(n) ?? recipe);
    current = recipe;
  }
  return targets;
}

function conventionChecks(manifests: readonly Manifest[], root: ReadonlySet<string>, texts: CheckFacts["texts"]): DetectedCheck[] {
  const checks: DetectedCheck[] = [];
  if (root.has("go.mod")) checks.push({ command: "go test ./...", source: "go.mod" }, { command: "go vet ./...", source: "go.mod" });
  if (root.has("Cargo.toml")) checks.push({ command: "cargo test", source: "Cargo.toml" });
  checks.push(...pythonChecks(manifests, root, texts));
  const dotnet = [...root].filter((f) => /\.(sln|csproj|fsproj|vbproj)$/.test(f)).sort();
  if (dotnet[0]) checks.push({ command: "dotnet test", source: dotnet[0] });
  if (root.has("pom.xml")) {
    const wrapper = root.has("mvnw");
    checks.push({ command: wrapper ? "./mvnw -q test" : "mvn -q test", source: wrapper ? "pom.xml and mvnw" : "pom.xml" });
  } else {
    const gradle = ["build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle"].find((f) => root.has(f));
    if (gradle) {
      const wrapper = root.has("gradlew");
      checks.push({ command: wrapper ? "./gradlew test" : "gradle test", source: wrapper ? `${gradle} and gradlew` : gradle });
    }
  }
  return checks;
}

/** tox and nox each run the test suite in their own environments, so one of them, else pytest. */
function pythonChecks(manifests: readonly Manifest[], root: ReadonlySet<string>, texts: CheckFacts["texts"]): DetectedCheck[] {
  const pyproject = manifests.find((m) => m.kind === "pyproject.toml");
  if (root.has("tox.ini")) return [{ command: "tox", source: "tox.ini" }];
  if (pyproject?.facts?.includes("tox-config")) return [{ command: "tox", source: "pyproject.toml [tool.tox]" }];
  if (root.has("noxfile.py")) return [{ command: "nox", source: "noxfile.py" }];
  const source = pytestSource(manifests, root, texts);
  return source ? [{ command: "pytest", source }] : [];
}

function pytestSource(manifests: readonly Manifest[], root: ReadonlySet<string>, texts: CheckFacts["texts"]): string | undefined {
  if (root.has("pytest.ini")) return "pytest.ini";
  if (manifests.some((m) => m.kind === "pyproject.toml" && m.facts?.includes("pytest-config")))
    return "pyproject.toml [tool.pytest.ini_options]";
  if (/^\[tool:pytest\]/m.test(texts["setup.cfg"] ?? "")) return "setup.cfg [tool:pytest]";
  const declared = manifests.find(
    (m) => (m.kind === "pyproject.toml" || m.kind === "requirements.txt") && m.dependencies.some((d) => d.name === "pytest"),
  );
  return declared ? `pytest in ${declared.path}` : undefined;
}

function dedupe(checks: DetectedCheck[]): DetectedCheck[] {
  const seen = new Set<string>();
  return checks.filter((c) => (seen.has(c.command) ? false : (seen.add(c.command), true)));
}
