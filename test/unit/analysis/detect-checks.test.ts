import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { describeResolvedChecks, makeTargets, readProjectChecks, resolveChecks } from "../../../src/analysis/index.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/analysis/${name}`, import.meta.url));

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

/** A project tree in a temp folder (no git: listed by walking). */
async function tree(files: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "otto-checks-"));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), text);
  }
  return dir;
}

const pkg = (data: Record<string, unknown>) => JSON.stringify({ name: "p", ...data });
const detect = async (files: Record<string, string>) => (await readProjectChecks(await tree(files))).checks;

describe("readProjectChecks on the analysis fixtures", () => {
  it("Node/TypeScript: the test script, and tsc --noEmit for typescript with a tsconfig.json", async () => {
    expect((await readProjectChecks(fixture("node-rest-api"))).checks).toEqual([
      { command: "npm test", source: "package.json scripts.test" },
      { command: "npx tsc --noEmit", source: "package.json devDependencies.typescript and tsconfig.json" },
    ]);
  });

  it("Go with a Makefile test target: make test, not the go conventions it wraps", async () => {
    expect((await readProjectChecks(fixture("go-operator"))).checks).toEqual([{ command: "make test", source: "Makefile target test" }]);
  });

  it("Python with [tool.pytest.ini_options]: pytest", async () => {
    expect((await readProjectChecks(fixture("python-cli"))).checks).toEqual([
      { command: "pytest", source: "pyproject.toml [tool.pytest.ini_options]" },
    ]);
  });

  it("Rust: cargo test", async () => {
    expect((await readProjectChecks(fixture("rust-crate"))).checks).toEqual([{ command: "cargo test", source: "Cargo.toml" }]);
  });

  it("Maven: mvn -q test", async () => {
    expect((await readProjectChecks(fixture("java-maven-service"))).checks).toEqual([{ command: "mvn -q test", source: "pom.xml" }]);
  });

  it("a monorepo: the root's scripts, not its packages' manifests", async () => {
    expect((await readProjectChecks(fixture("mixed-monorepo"))).checks).toEqual([
      { command: "npm test", source: "package.json scripts.test" },
    ]);
  });
});

describe("readProjectChecks: package.json", () => {
  it("runs scripts with the lockfile's package manager", async () => {
    const scripts = { test: "vitest run", lint: "eslint .", typecheck: "tsc --noEmit", build: "tsc" };
    expect(await detect({ "package.json": pkg({ scripts }), "package-lock.json": "{}" })).toEqual([
      { command: "npm test", source: "package.json scripts.test" },
      { command: "npm run lint", source: "package.json scripts.lint" },
      { command: "npm run typecheck", source: "package.json scripts.typecheck" },
    ]);
    expect((await detect({ "package.json": pkg({ scripts }), "pnpm-lock.yaml": "" })).map((c) => c.command)).toEqual([
      "pnpm test",
      "pnpm run lint",
      "pnpm run typecheck",
    ]);
    expect((await detect({ "package.json": pkg({ scripts }), "yarn.lock": "" })).map((c) => c.command)).toEqual([
      "yarn test",
      "yarn run lint",
      "yarn run typecheck",
    ]);
    // `bun test` would be bun's own runner, not the script.
    expect((await detect({ "package.json": pkg({ scripts }), "bun.lockb": "" })).map((c) => c.command)).toEqual([
      "bun run test",
      "bun run lint",
      "bun run typecheck",
    ]);
    expect((await detect({ "package.json": pkg({ scripts }), "bun.lock": "" })).map((c) => c.command)).toContain("bun run test");
  });

  it("skips npm's placeholder test script; a typecheck script wins over tsc", async () => {
    const placeholder = 'echo "Error: no test specified" && exit 1';
    expect(await detect({ "package.json": pkg({ scripts: { test: placeholder } }) })).toEqual([]);
    const files = {
      "package.json": pkg({ scripts: { typecheck: "tsc -b" }, devDependencies: { typescript: "^5" } }),
      "tsconfig.json": "{}",
      "pnpm-lock.yaml": "",
    };
    expect((await detect(files)).map((c) => c.command)).toEqual(["pnpm run typecheck"]);
    // typescript without a tsconfig.json is no project to typecheck.
    expect(await detect({ "package.json": pkg({ devDependencies: { typescript: "^5" } }) })).toEqual([]);
    expect(await detect({ "package.json": pkg({ dependencies: { typescript: "^5" } }), "tsconfig.json": "{}", "yarn.lock": "" })).toEqual([
      { command: "yarn run tsc --noEmit", source: "package.json dependencies.typescript and tsconfig.json" },
    ]);
  });

  it("drops a Makefile target that only wraps the package manager, keeps one that does more", async () => {
    const files = {
      "package.json": pkg({ scripts: { test: "jest" } }),
      Makefile: "test:\n\tnpm test\n\ncheck: lint\n\t./scripts/check.sh\n",
    };
    expect(await detect(files)).toEqual([
      { command: "npm test", source: "package.json scripts.test" },
      { command: "make check", source: "Makefile target check" },
    ]);
  });
});

describe("readProjectChecks: other ecosystems", () => {
  it("Go without a Makefile: go test and go vet", async () => {
    expect(await detect({ "go.mod": "module example.com/x\n\ngo 1.22\n", "main.go": "package main\n" })).toEqual([
      { command: "go test ./...", source: "go.mod" },
      { command: "go vet ./...", source: "go.mod" },
    ]);
  });

  it("Python: pytest from a dependency or setup.cfg; tox and nox run it themselves", async () => {
    expect(await detect({ "requirements-dev.txt": "pytest==8.2\n", "app.py": "" })).toEqual([
      { command: "pytest", source: "pytest in requirements-dev.txt" },
    ]);
    expect(await detect({ "setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\n" })).toEqual([
      { command: "pytest", source: "setup.cfg [tool:pytest]" },
    ]);
    expect(await detect({ "pytest.ini": "[pytest]\n" })).toEqual([{ command: "pytest", source: "pytest.ini" }]);
    expect(await detect({ "tox.ini": "[tox]\n", "requirements-dev.txt": "pytest\n" })).toEqual([{ command: "tox", source: "tox.ini" }]);
    expect(await detect({ "pyproject.toml": '[project]\nname = "x"\n\n[tool.tox]\nlegacy_tox_ini = ""\n' })).toEqual([
      { command: "tox", source: "pyproject.toml [tool.tox]" },
    ]);
    expect(await detect({ "noxfile.py": "import nox\n", "pyproject.toml": '[project]\nname = "x"\n' })).toEqual([
      { command: "nox", source: "noxfile.py" },
    ]);
    // A Python project without pytest declares no check.
    expect(await detect({ "pyproject.toml": '[project]\nname = "x"\ndependencies = ["click"]\n' })).toEqual([]);
  });

  it(".NET, Gradle and the JVM wrappers", async () => {
    expect(await detect({ "App.sln": "", "src/App/App.csproj": "<Project/>" })).toEqual([{ command: "dotnet test", source: "App.sln" }]);
    expect(await detect({ "build.gradle.kts": "", gradlew: "#!/bin/sh\n" })).toEqual([
      { command: "./gradlew test", source: "build.gradle.kts and gradlew" },
    ]);
    expect(await detect({ "build.gradle": "" })).toEqual([{ command: "gradle test", source: "build.gradle" }]);
    expect(await detect({ "pom.xml": "<project/>", mvnw: "#!/bin/sh\n" })).toEqual([
      { command: "./mvnw -q test", source: "pom.xml and mvnw" },
    ]);
  });

  it("a Makefile alone: its test and check targets", async () => {
    expect(await detect({ Makefile: ".PHONY: test check\nVERSION := 1\ncheck test: deps\n\t./run-tests\n" })).toEqual([
      { command: "make test", source: "Makefile target test" },
      { command: "make check", source: "Makefile target check" },
    ]);
    expect(await detect({ Makefile: "build:\n\tcc x.c\n" })).toEqual([]);
  });

  it("no manifest at the root: nothing, and a note naming the nested ones", async () => {
    const nested = await readProjectChecks(
      await tree({ "services/api/go.mod": "module x\n", "web/package.json": pkg({ scripts: { test: "jest" } }) }),
    );
    expect(nested.checks).toEqual([]);
    expect(nested.notes.join("\n")).toMatch(/manifests below it \(.*services\/api\/go\.mod.*\) are not used/);
    const empty = await readProjectChecks(await tree({ "README.md": "# hi\n" }));
    expect(empty.checks).toEqual([]);
    expect(empty.notes.join("\n")).toContain("No checks found");
  });
});

describe("makeTargets", () => {
  it("reads rules and recipes, not variables or comments", () => {
    const targets = makeTargets("# test: no\nCC := gcc\nX ?= y\ntest: build ## run\n\tgo test ./...\n\n\t# c\nlint: ; golangci-lint run\n");
    expect([...targets.keys()]).toEqual(["test", "lint"]);
    expect(targets.get("test")).toEqual(["go test ./..."]);
    expect(targets.get("lint")).toEqual(["golangci-lint run"]);
  });
});

describe("resolveChecks", () => {
  const detected = async () => ({ checks: [{ command: "npm test", source: "package.json scripts.test" }], notes: [] });

  it("a configured list wins, even when it is empty", async () => {
    const configured = await resolveChecks("spec.verify", ["make ci"], "/nowhere", detected);
    expect(configured).toMatchObject({ origin: "configured", checks: [{ command: "make ci", source: "spec.verify" }] });
    expect(describeResolvedChecks(configured)).toBe("checks: make ci (configured: spec.verify)");
    const none = await resolveChecks("pr.verify", [], "/nowhere", detected);
    expect(none.checks).toEqual([]);
    expect(describeResolvedChecks(none)).toBe("checks: none (pr.verify is [])");
  });

  it("unset: the detected checks, said so", async () => {
    const resolved = await resolveChecks("spec.verify", undefined, "/nowhere", detected);
    expect(resolved.origin).toBe("detected");
    expect(describeResolvedChecks(resolved)).toBe("checks: npm test (detected: package.json scripts.test)");
    const nothing = await resolveChecks("spec.verify", undefined, "/nowhere", async () => ({ checks: [], notes: ["No checks found"] }));
    expect(describeResolvedChecks(nothing)).toBe("checks: none detected (set spec.verify to run some)");
  });
});
