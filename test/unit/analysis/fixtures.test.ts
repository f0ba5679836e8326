import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzeCodebase, renderCodebaseSummary, type CodebaseSummary } from "../../../src/analysis/index.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/analysis/${name}`, import.meta.url));
const analyze = (name: string) => analyzeCodebase(fixture(name));

const names = (findings: { name: string }[]) => findings.map((f) => f.name);
const depNames = (summary: CodebaseSummary) => summary.keyDependencies.map((d) => d.name);

describe("analyzeCodebase on fixture repositories", () => {
  it("recognises a Node/TypeScript REST API", async () => {
    const summary = await analyze("node-rest-api");
    expect(summary.empty).toBe(false);
    expect(summary.archetype.kind).toBe("rest-api");
    expect(summary.archetype.matches[0]?.evidence).toContain("express ^4.19.2 (package.json)");
    expect(summary.languages[0]).toEqual({ name: "TypeScript", files: 7 });
    expect(summary.manifests[0]).toMatchObject({ kind: "package.json", name: "orders-api", moduleType: "module" });
    expect(depNames(summary)).toEqual(expect.arrayContaining(["express", "pino", "zod", "prom-client", "vitest"]));
    // Unrecognised dev tooling is not a key dependency.
    expect(depNames(summary)).not.toContain("@types/express");
    expect(names(summary.conventions.testing)).toEqual(["Vitest", "JS/TS test files"]);
    expect(names(summary.conventions.logging)).toEqual(["pino"]);
    expect(names(summary.conventions.metrics)).toEqual(["Prometheus client"]);
    expect(names(summary.conventions.config)).toEqual(["dotenv", "environment variables"]);
    expect(summary.conventions.errors[0]?.evidence[0]).toContain("HttpError, NotFoundError");
    expect(summary.conventions.tracing).toEqual([]);
    expect(summary.layout.notable).toEqual(["README.md", "Dockerfile", ".github/workflows/ci.yml"]);
  });

  it("recognises a Go Kubernetes operator", async () => {
    const summary = await analyze("go-operator");
    expect(summary.archetype.kind).toBe("k8s-operator");
    expect(summary.archetype.matches[0]?.evidence).toEqual([
      "sigs.k8s.io/controller-runtime v0.18.4 (go.mod)",
      "PROJECT / config/crd (2 files)",
    ]);
    expect(summary.languages).toEqual([{ name: "Go", files: 5 }]);
    expect(summary.manifests[0]).toMatchObject({ name: "github.com/example/memcached-operator", toolchain: "go 1.22.0" });
    // Indirect requirements (grpc here) neither count as evidence nor as key dependencies.
    expect(depNames(summary)).not.toContain("google.golang.org/grpc");
    expect(depNames(summary)).toContain("sigs.k8s.io/controller-runtime");
    expect(names(summary.conventions.testing)).toEqual(["go test", "Ginkgo/Gomega", "envtest"]);
    expect(names(summary.conventions.logging)).toEqual(["logr"]);
    expect(names(summary.conventions.di)).toEqual(["controller-runtime manager"]);
    expect(names(summary.conventions.config)).toEqual(["command-line flags"]);
    expect(names(summary.conventions.errors)).toEqual(["wrapping with %w", "sentinel errors"]);
    expect(summary.conventions.errors[1]?.evidence[0]).toContain("ErrInvalidSize");
  });

  it("recognises a Python CLI", async () => {
    const summary = await analyze("python-cli");
    expect(summary.archetype.kind).toBe("cli");
    expect(summary.archetype.matches[0]?.evidence).toEqual(["click >=8.1,<9 (pyproject.toml)", "executable entry (pyproject.toml)"]);
    expect(summary.languages[0]).toEqual({ name: "Python", files: 7 });
    expect(summary.manifests.map((m) => m.path)).toEqual(["pyproject.toml", "requirements-dev.txt"]);
    expect(depNames(summary)).toEqual(expect.arrayContaining(["click", "rich", "pydantic-settings", "structlog", "pytest"]));
    expect(names(summary.conventions.testing)).toEqual(["pytest", "Python test files"]);
    expect(names(summary.conventions.logging)).toEqual(["Python logging", "structlog"]);
    expect(names(summary.conventions.config)).toEqual(["environment variables", "pydantic-settings"]);
    expect(summary.conventions.errors[0]?.evidence[0]).toContain("TodoError, TodoNotFoundError");
  });

  it("recognises a Rust library crate", async () => {
    const summary = await analyze("rust-crate");
    expect(summary.archetype.kind).toBe("library");
    expect(summary.archetype.matches[0]?.evidence).toContain("src/lib.rs");
    expect(summary.languages).toEqual([{ name: "Rust", files: 3 }]);
    expect(summary.manifests[0]).toMatchObject({ name: "tinyjson", toolchain: "edition 2021" });
    const serde = summary.keyDependencies.find((d) => d.name === "serde");
    expect(serde?.version).toBe("1.0");
    expect(depNames(summary)).toEqual(expect.arrayContaining(["thiserror", "log", "memchr", "env_logger"]));
    expect(names(summary.conventions.testing)).toEqual(["cargo test"]);
    expect(names(summary.conventions.logging)).toEqual(["log (crate)", "env_logger"]);
    expect(names(summary.conventions.errors)).toEqual(["thiserror"]);
  });

  it("recognises a Java Spring Boot REST service", async () => {
    const summary = await analyze("java-maven-service");
    expect(summary.archetype.kind).toBe("rest-api");
    expect(summary.archetype.matches[0]?.evidence[0]).toBe("org.springframework.boot:spring-boot-starter-web (pom.xml)");
    expect(summary.languages).toEqual([{ name: "Java", files: 5 }]);
    expect(summary.manifests[0]).toMatchObject({ name: "orders-service", toolchain: "java 17" });
    // dependencyManagement entries and commented-out dependencies are not dependencies.
    expect(depNames(summary)).not.toContain("org.springframework.kafka:spring-kafka");
    expect(depNames(summary)).not.toContain("org.apache.kafka:kafka-clients");
    expect(summary.keyDependencies.find((d) => d.name === "org.testcontainers:junit-jupiter")).toMatchObject({
      version: "1.19.8",
      dev: true,
    });
    expect(names(summary.conventions.testing)).toEqual(["JUnit", "Java test files", "Testcontainers"]);
    expect(names(summary.conventions.logging)).toEqual(["SLF4J"]);
    expect(names(summary.conventions.metrics)).toEqual(["Micrometer", "Spring Boot Actuator"]);
    expect(names(summary.conventions.errors)).toEqual(["custom exceptions", "@ControllerAdvice handlers"]);
    expect(names(summary.conventions.di)).toEqual(["Spring IoC"]);
  });

  it("recognises a mixed monorepo as a hybrid", async () => {
    const summary = await analyze("mixed-monorepo");
    expect(summary.archetype.kind).toBe("hybrid");
    expect(summary.archetype.matches.map((m) => m.kind)).toEqual(["rest-api", "event-driven", "frontend-app"]);
    expect(summary.languages.map((l) => l.name)).toEqual(["Go", "Python", "TypeScript", "HTML", "Vue"]);
    expect(summary.manifests[0]).toMatchObject({ path: "package.json", workspaces: ["packages/*"] });
    expect(summary.layout.packages).toEqual([
      { path: "packages/shared", kinds: ["package.json"] },
      { path: "packages/web", kinds: ["package.json"] },
      { path: "services/api", kinds: ["go.mod"] },
      { path: "services/worker", kinds: ["pyproject.toml"] },
    ]);
    expect(summary.keyDependencies.find((d) => d.name === "structlog")?.version).toBe("^24.2.0");
    expect(names(summary.conventions.testing)).toEqual([
      "Vitest",
      "go test",
      "table-driven tests",
      "testify",
      "pytest",
      "Python test files",
    ]);
    expect(names(summary.conventions.logging)).toEqual(["zap", "structlog"]);
  });

  it("renders every fixture within the line budget", async () => {
    for (const name of ["node-rest-api", "go-operator", "python-cli", "rust-crate", "java-maven-service", "mixed-monorepo"]) {
      const text = renderCodebaseSummary(await analyze(name));
      expect(text.split("\n").length).toBeLessThanOrEqual(60);
      expect(text).not.toContain(fixture(name));
    }
  });
});
