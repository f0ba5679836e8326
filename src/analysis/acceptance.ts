import { makeTargets, type CheckFacts, type DetectedCheck } from "./detect-checks.ts";

/*
 * A task's acceptance check (tasks.md `verify`) is a command a model wrote, so before it is
 * trusted to say "this task holds" it is held against the project's tooling, as detection holds
 * the project's own checks: the runner it calls must be one the project uses (a package.json
 * script, a dependency's binary, a Makefile target, the toolchain of a manifest at the root), and
 * a script it names must exist (or be one of the task's own files). A command that could not run
 * here would fail every attempt for a reason the task cannot fix.
 */

/** Read-only utilities every POSIX system has: `test -f out.txt`, `grep -q x file`. */
const POSIX = new Set(["test", "[", "grep", "diff", "cmp", "ls", "cat", "true"]);
/** Runners of scripts: `node x.js`, `bash scripts/x.sh`. */
const INTERPRETERS = new Set(["node", "bash", "sh", "python", "python3", "ruby", "perl", "deno", "tsx"]);
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
/** Binaries of dev dependencies whose package name differs. */
const BINARY_PACKAGES: Readonly<Record<string, string>> = {
  tsc: "typescript",
  playwright: "@playwright/test",
  "ts-node": "ts-node",
  vitest: "vitest",
  jest: "jest",
};

/** A toolchain's programs and the root file that shows the project uses it (named to follow "has no"). */
const TOOLCHAINS: ReadonlyArray<{ programs: string[]; files: RegExp; name: string }> = [
  { programs: ["go"], files: /^go\.(mod|work)$/, name: "go.mod" },
  { programs: ["cargo"], files: /^Cargo\.toml$/, name: "Cargo.toml" },
  {
    programs: ["pytest", "tox", "nox"],
    files: /^(pyproject\.toml|setup\.(cfg|py)|requirements.*\.txt|tox\.ini|noxfile\.py|pytest\.ini)$/,
    name: "Python project file (pyproject.toml, setup.py, setup.cfg, requirements*.txt, tox.ini, noxfile.py, pytest.ini)",
  },
  { programs: ["dotnet"], files: /\.(sln|csproj|fsproj)$/, name: ".NET solution or project file" },
  { programs: ["mvn", "./mvnw"], files: /^(pom\.xml|mvnw)$/, name: "pom.xml" },
  { programs: ["gradle", "./gradlew"], files: /^(build\.gradle(\.kts)?|gradlew)$/, name: "Gradle build (build.gradle, gradlew)" },
];

export interface AcceptanceContext extends CheckFacts {
  /** The project's detected checks, named in the advice. */
  checks: readonly DetectedCheck[];
}

/** Words of a command line, without leading `VAR=value` assignments (quotes stripped, good enough to name the program). */
function words(command: string): string[] {
  const out = (command.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ""));
  while (out.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(out[0] ?? "")) out.shift();
  return out;
}

const relative = (file: string): string => file.replace(/^\.\//, "");

/**
 * Why `command` is no acceptance check this project can run, or undefined when it is one.
 * `ownFiles`: the task's `files` (a script the task itself adds may be its check).
 */
export function judgeAcceptance(command: string, context: AcceptanceContext, ownFiles: readonly string[] = []): string | undefined {
  const [program = "", ...args] = words(command);
  const files = new Set([...context.files, ...ownFiles.map(relative)]);
  const root = [...context.files].filter((f) => !f.includes("/"));
  const pkg = context.manifests.find((m) => m.kind === "package.json" && !m.path.includes("/"));
  const theirs = context.checks.length > 0 ? ` (its checks: ${context.checks.map((c) => c.command).join(", ")})` : "";
  const exists = (file: string | undefined, what: string): string | undefined =>
    file === undefined || files.has(relative(file))
      ? undefined
      : `\`${command}\` runs ${what} ${file}, which is not in the repository nor in the task's files`;

  if (program === "") return "the verify field is empty";
  if (/[|;&]|\$\(|`/.test(command.replace(/&&/g, "")))
    return `\`${command}\` is more than one command; write one command (a test file, a script, a typecheck)`;
  if (POSIX.has(program)) return undefined;
  if (program.includes("/")) return exists(program, "the script");
  if (INTERPRETERS.has(program))
    return exists(
      args.find((a) => !a.startsWith("-")),
      "the script",
    );
  if (PACKAGE_MANAGERS.has(program)) {
    if (!pkg) return `\`${command}\` uses ${program}, but the repository has no package.json at its root${theirs}`;
    const scripts = pkg.scripts ?? {};
    const [verb = "", name] = args;
    if (verb === "test" || verb === "t")
      return scripts.test !== undefined ? undefined : `\`${command}\` runs the test script, which package.json does not have${theirs}`;
    if (verb === "run" || verb === "run-script")
      return name !== undefined && scripts[name] !== undefined
        ? undefined
        : `\`${command}\` runs the script ${name ?? "(none)"}, which package.json does not have${theirs}`;
    if (verb === "exec" || (program === "yarn" && verb !== "")) return binary(program === "yarn" && verb !== "exec" ? verb : name);
    if (program === "bun" && verb !== "")
      return scripts[verb] !== undefined ? undefined : `\`${command}\` runs ${verb}, which package.json's scripts do not have${theirs}`;
    return `\`${command}\` is not a script run; write \`${program} test -- <test file>\` or \`${program} run <script>\`${theirs}`;
  }
  if (program === "npx" || program === "bunx") return binary(args.find((a) => !a.startsWith("-")));
  if (program === "make") {
    const makefile = ["GNUmakefile", "makefile", "Makefile"].find((n) => context.texts[n] !== undefined);
    const target = args.find((a) => !a.startsWith("-") && !a.includes("="));
    if (!makefile) return `\`${command}\` runs make, but the repository has no Makefile at its root${theirs}`;
    return target === undefined || makeTargets(context.texts[makefile] ?? "").has(target)
      ? undefined
      : `\`${command}\` runs the make target ${target}, which ${makefile} does not have${theirs}`;
  }
  const toolchain = TOOLCHAINS.find((t) => t.programs.includes(program));
  if (toolchain)
    return root.some((f) => toolchain.files.test(f))
      ? undefined
      : `\`${command}\` runs ${program}, but the repository root has no ${toolchain.name}${theirs}`;
  return `\`${command}\` runs ${program}, which is none of this project's tools${theirs}; use one of its checks, narrowed to what the task changes`;

  function binary(name: string | undefined): string | undefined {
    if (!pkg) return `\`${command}\` runs a package binary, but the repository has no package.json at its root${theirs}`;
    if (name === undefined) return `\`${command}\` names no program`;
    const wanted = BINARY_PACKAGES[name] ?? name;
    return pkg.dependencies.some((d) => d.name === wanted || d.name === name)
      ? undefined
      : `\`${command}\` runs ${name}, which is not a dependency in package.json${theirs}`;
  }
}
