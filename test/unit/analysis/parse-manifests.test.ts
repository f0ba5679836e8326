import { describe, expect, it } from "vitest";
import { parseCargoToml } from "../../../src/analysis/parse-cargo.ts";
import { parseGoMod } from "../../../src/analysis/parse-go-mod.ts";
import { parseGradle, parsePom } from "../../../src/analysis/parse-jvm.ts";
import { parsePackageJson } from "../../../src/analysis/parse-package-json.ts";
import { parsePyproject, parseRequirements } from "../../../src/analysis/parse-python.ts";
import { findManifestPaths, parseManifest } from "../../../src/analysis/read-manifests.ts";
import { readTomlLite } from "../../../src/analysis/read-toml-lite.ts";
import type { Dependency } from "../../../src/analysis/types.ts";

const short = (deps: Dependency[]) => deps.map((d) => `${d.name}@${d.version ?? "-"}${d.dev ? ":dev" : ""}`);

describe("package.json", () => {
  it("reads deps, dev deps, scripts, type, workspaces, bin and engines", () => {
    const manifest = parsePackageJson(
      "package.json",
      JSON.stringify({
        name: "tool",
        type: "module",
        bin: { tool: "bin/tool.js" },
        engines: { node: ">=20" },
        workspaces: { packages: ["packages/*"] },
        scripts: { test: "node --test" },
        dependencies: { commander: "^12.0.0" },
        devDependencies: { typescript: "5.4.5" },
      }),
    );
    expect(manifest).toMatchObject({ name: "tool", moduleType: "module", bin: true, toolchain: "node >=20" });
    expect(manifest.workspaces).toEqual(["packages/*"]);
    expect(manifest.facts).toEqual(["node-test-script"]);
    expect(short(manifest.dependencies)).toEqual(["commander@^12.0.0", "typescript@5.4.5:dev"]);
  });

  it("reports invalid JSON as a note through parseManifest", () => {
    const notes: string[] = [];
    expect(parseManifest("web/package.json", "{", notes)).toBeUndefined();
    expect(notes[0]).toMatch(/^Could not parse web\/package\.json: /);
  });
});

describe("go.mod", () => {
  it("reads module, go version, single and block requires, marking indirect ones", () => {
    const manifest = parseGoMod(
      "go.mod",
      [
        "module example.com/svc // the service",
        "",
        "go 1.22",
        "",
        "require github.com/spf13/cobra v1.8.0",
        "require (",
        "\tgithub.com/urfave/cli/v2 v2.27.1",
        "\tgolang.org/x/sys v0.20.0 // indirect",
        ")",
        "replace (",
        "\texample.com/old => ../old",
        ")",
      ].join("\n"),
    );
    expect(manifest).toMatchObject({ name: "example.com/svc", toolchain: "go 1.22" });
    expect(manifest.dependencies).toEqual([
      { name: "github.com/spf13/cobra", version: "v1.8.0", ecosystem: "go", dev: false, manifest: "go.mod" },
      { name: "github.com/urfave/cli/v2", version: "v2.27.1", ecosystem: "go", dev: false, manifest: "go.mod" },
      { name: "golang.org/x/sys", version: "v0.20.0", ecosystem: "go", dev: false, manifest: "go.mod", indirect: true },
    ]);
  });
});

describe("Python manifests", () => {
  it("reads PEP 621 dependencies, extras, dependency groups and scripts", () => {
    const manifest = parsePyproject(
      "pyproject.toml",
      [
        "[project]",
        'name = "svc"',
        'requires-python = ">=3.12"',
        "dependencies = [",
        '  "FastAPI[all] >= 0.111",  # web',
        "  'uvicorn',",
        "  \"httpx (>=0.27) ; python_version > '3.8'\",",
        "]",
        "[project.optional-dependencies]",
        'postgres = ["asyncpg>=0.29"]',
        'test = ["pytest"]',
        "[dependency-groups]",
        'dev = ["ruff"]',
        "[project.scripts]",
        'svc = "svc.cli:main"',
      ].join("\n"),
    );
    expect(manifest).toMatchObject({ name: "svc", toolchain: "python >=3.12", bin: true });
    expect(short(manifest.dependencies)).toEqual([
      "fastapi@>= 0.111",
      "uvicorn@-",
      "httpx@>=0.27",
      "asyncpg@>=0.29",
      "pytest@-:dev",
      "ruff@-:dev",
    ]);
  });

  it("reads Poetry tables, treating python as the toolchain", () => {
    const manifest = parsePyproject(
      "pyproject.toml",
      [
        "[tool.poetry]",
        'name = "worker"',
        "[tool.poetry.dependencies]",
        'python = "^3.11"',
        'celery = { version = "^5.4", extras = ["redis"] }',
        "[tool.poetry.dev-dependencies]",
        'black = "^24.0"',
        "[tool.poetry.group.test.dependencies]",
        'pytest = "^8.0"',
        "[tool.poetry.scripts]",
        'worker = "worker.main:run"',
      ].join("\n"),
    );
    expect(manifest).toMatchObject({ name: "worker", toolchain: "python ^3.11", bin: true });
    expect(short(manifest.dependencies)).toEqual(["celery@^5.4", "black@^24.0:dev", "pytest@^8.0:dev"]);
  });

  it("reads requirements files, skipping options and URLs", () => {
    const text = "# pinned\nDjango==5.0.6\n-r base.txt\n--hash=sha256:abc\ngit+https://x/y.git\ngunicorn  # server\n";
    expect(short(parseRequirements("requirements.txt", text).dependencies)).toEqual(["django@==5.0.6", "gunicorn@-"]);
    expect(parseRequirements("requirements/dev.txt", "pytest\n").dependencies[0]?.dev).toBe(true);
  });
});

describe("Cargo.toml", () => {
  it("reads plain, inline, dotted, target-specific, dev and workspace dependencies", () => {
    const manifest = parseCargoToml(
      "Cargo.toml",
      [
        "[package]",
        'name = "svc"',
        'rust-version = "1.78"',
        "[[bin]]",
        'name = "svc"',
        "[dependencies]",
        'tokio = { version = "1.38", features = ["full"] }',
        'axum = "0.7"',
        "serde.workspace = true",
        "[dependencies.clap]",
        'version = "4.5"',
        "[target.'cfg(unix)'.dependencies]",
        'nix = "0.29"',
        "[dev-dependencies]",
        'insta = "1.39"',
      ].join("\n"),
    );
    expect(manifest).toMatchObject({ name: "svc", toolchain: "rust 1.78", bin: true });
    expect(short(manifest.dependencies)).toEqual(["tokio@1.38", "axum@0.7", "serde@-", "clap@4.5", "nix@0.29", "insta@1.39:dev"]);
  });

  it("reads workspace members", () => {
    const manifest = parseCargoToml("Cargo.toml", '[workspace]\nmembers = [\n  "crates/a",\n  "crates/b",\n]\n');
    expect(manifest.workspaces).toEqual(["crates/a", "crates/b"]);
  });
});

describe("JVM manifests", () => {
  it("reads pom.xml dependencies, resolving properties and skipping managed and plugin ones", () => {
    const pom = `<project>
      <groupId>com.acme</groupId><artifactId>billing</artifactId>
      <properties><grpc.version>1.64.0</grpc.version><maven.compiler.release>21</maven.compiler.release></properties>
      <dependencyManagement><dependencies><dependency>
        <groupId>io.grpc</groupId><artifactId>grpc-bom</artifactId><version>\${grpc.version}</version>
      </dependency></dependencies></dependencyManagement>
      <dependencies>
        <dependency><groupId>io.grpc</groupId><artifactId>grpc-netty</artifactId><version>\${grpc.version}</version></dependency>
        <!-- <dependency><groupId>x</groupId><artifactId>gone</artifactId></dependency> -->
        <dependency><groupId>junit</groupId><artifactId>junit</artifactId><scope>test</scope></dependency>
      </dependencies>
      <build><plugins><plugin><dependencies><dependency>
        <groupId>p</groupId><artifactId>plugin-dep</artifactId>
      </dependency></dependencies></plugin></plugins></build>
    </project>`;
    const manifest = parsePom("pom.xml", pom);
    expect(manifest).toMatchObject({ name: "billing", toolchain: "java 21" });
    expect(short(manifest.dependencies)).toEqual(["io.grpc:grpc-netty@1.64.0", "junit:junit@-:dev"]);
  });

  it("reads Groovy and Kotlin DSL dependency lines", () => {
    const groovy =
      "dependencies {\n  implementation 'org.springframework.boot:spring-boot-starter-web:3.3.0'\n  testImplementation \"org.junit.jupiter:junit-jupiter\"\n}\njava { toolchain { languageVersion = JavaLanguageVersion.of(21) } }\n";
    const kts =
      'dependencies {\n    implementation(platform("io.micrometer:micrometer-bom:1.13.0"))\n    api("com.google.guava:guava:33.2.1-jre")\n}\n';
    const g = parseGradle("build.gradle", groovy);
    expect(g.toolchain).toBe("java 21");
    expect(short(g.dependencies)).toEqual([
      "org.springframework.boot:spring-boot-starter-web@3.3.0",
      "org.junit.jupiter:junit-jupiter@-:dev",
    ]);
    expect(short(parseGradle("app/build.gradle.kts", kts).dependencies)).toEqual([
      "io.micrometer:micrometer-bom@1.13.0",
      "com.google.guava:guava@33.2.1-jre",
    ]);
  });
});

describe("manifest discovery and TOML", () => {
  it("finds manifests shallowest first, ignoring fixtures, testdata and top-level examples", () => {
    const files = [
      "services/api/go.mod",
      "package.json",
      "test/fixtures/app/package.json",
      "internal/testdata/go.mod",
      "examples/demo/package.json",
      "requirements-dev.txt",
      "README.md",
      "app/build.gradle.kts",
    ];
    expect(findManifestPaths(files)).toEqual(["package.json", "requirements-dev.txt", "app/build.gradle.kts", "services/api/go.mod"]);
  });

  it("keeps quoted # and = inside values, and array tables apart", () => {
    const tables = readTomlLite('title = "a # not a comment" # comment\nurl = "x=y"\n[[bin]]\nname = "a"\n[[bin]]\nname = "b"\n');
    expect(tables[0]?.entries.get("title")).toBe('"a # not a comment"');
    expect(tables[0]?.entries.get("url")).toBe('"x=y"');
    expect(tables.filter((t) => t.name === "bin" && t.array)).toHaveLength(2);
  });
});
