import { describe, expect, it } from "vitest";
import { classifyArchetype } from "../../../src/analysis/classify-archetype.ts";
import { detectConventions, pickKeyDependencies } from "../../../src/analysis/detect-conventions.ts";
import { matchesPattern } from "../../../src/analysis/match-rules.ts";
import type { Dependency, Ecosystem, Manifest, Signals } from "../../../src/analysis/types.ts";

function dep(ecosystem: Ecosystem, name: string, extra: Partial<Dependency> = {}): Dependency {
  return { name, ecosystem, dev: false, manifest: "m", ...extra };
}

function manifest(deps: Dependency[], path = "package.json"): Manifest {
  return { path, kind: "package.json", dependencies: deps };
}

const noSignals: Signals = new Map();

function classify(deps: Dependency[], files: string[] = [], signals: Signals = noSignals) {
  return classifyArchetype({ deps, files, signals, manifests: [manifest(deps)] });
}

describe("matchesPattern", () => {
  it("matches exact names, prefixes and Go major-version paths only", () => {
    expect(matchesPattern(dep("go", "github.com/urfave/cli/v2"), "go:github.com/urfave/cli")).toBe(true);
    expect(matchesPattern(dep("go", "github.com/urfave/cli-extra"), "go:github.com/urfave/cli")).toBe(false);
    expect(matchesPattern(dep("maven", "io.grpc:grpc-netty"), "maven:io.grpc:*")).toBe(true);
    expect(matchesPattern(dep("npm", "express"), "cargo:express")).toBe(false);
  });
});

describe("classifyArchetype", () => {
  it("ignores dev and indirect dependencies as evidence", () => {
    const result = classify([dep("npm", "commander", { dev: true }), dep("go", "google.golang.org/grpc", { indirect: true })]);
    expect(result.kind).toBe("library");
  });

  it("makes a hybrid of several strong matches", () => {
    const result = classify([dep("go", "github.com/labstack/echo/v4"), dep("go", "github.com/IBM/sarama")]);
    expect(result.kind).toBe("hybrid");
    expect(result.matches.map((m) => m.kind)).toEqual(["rest-api", "event-driven"]);
  });

  it("uses weak evidence only when nothing strong matched", () => {
    const signals: Signals = new Map([["go.nethttp", { count: 2, files: ["main.go"], names: [] }]]);
    expect(classify([], ["main.go"], signals).kind).toBe("rest-api");
    expect(classify([dep("go", "github.com/spf13/cobra")], ["main.go"], signals).kind).toBe("cli");
  });

  it("needs both a UI library and app tooling (or index.html) for a frontend app", () => {
    expect(classify([dep("npm", "react")]).kind).toBe("library");
    expect(classify([dep("npm", "react"), dep("npm", "vite", { dev: true })]).kind).toBe("frontend-app");
    expect(classify([dep("npm", "react")], ["public/index.html"]).kind).toBe("frontend-app");
  });

  it("detects a gRPC service from .proto files and an operator from its layout", () => {
    expect(classify([], ["proto/orders.proto", "proto/users.proto"]).matches[0]?.evidence).toEqual([".proto files (2 files)"]);
    expect(classify([], ["PROJECT", "config/crd/bases/x.yaml"]).kind).toBe("k8s-operator");
  });

  it("is unknown without manifests, and not a library when there is an entrypoint", () => {
    expect(classifyArchetype({ deps: [], files: ["a.sh"], signals: noSignals, manifests: [] }).kind).toBe("unknown");
    expect(classify([], ["cmd/tool/main.go"]).kind).toBe("unknown");
  });
});

describe("detectConventions", () => {
  it("counts dev dependencies, reports only what has evidence, and uses file patterns", () => {
    const conventions = detectConventions({
      deps: [dep("npm", "jest", { dev: true }), dep("go", "go.uber.org/zap", { indirect: true })],
      files: ["src/a.spec.ts", "src/b.spec.ts"],
      signals: noSignals,
    });
    expect(conventions.testing).toEqual([
      { name: "Jest", evidence: ["jest (m)"] },
      { name: "JS/TS test files", evidence: ["*.test / *.spec files (2 files)"] },
    ]);
    expect(conventions.logging).toEqual([]);
  });

  it("describes content signals with counts and captured names", () => {
    const signals: Signals = new Map([["go.sentinel", { count: 3, files: ["a.go", "b.go"], names: ["ErrA", "ErrB", "ErrC"] }]]);
    const conventions = detectConventions({ deps: [], files: [], signals });
    expect(conventions.errors).toEqual([
      { name: "sentinel errors", evidence: ["errors.New sentinels: ErrA, ErrB, ErrC (3× in 2 sampled files, e.g. a.go)"] },
    ]);
  });
});

describe("pickKeyDependencies", () => {
  it("puts recognised runtime deps first, drops indirect and unrecognised dev deps, and caps", () => {
    const deps = [
      dep("npm", "left-pad"),
      dep("npm", "@types/node", { dev: true }),
      dep("npm", "vitest", { dev: true }),
      dep("npm", "express"),
      dep("go", "golang.org/x/sys", { indirect: true }),
    ];
    expect(pickKeyDependencies([manifest(deps)], 10).map((d) => d.name)).toEqual(["express", "left-pad", "vitest"]);
    expect(pickKeyDependencies([manifest(deps)], 2).map((d) => d.name)).toEqual(["express", "left-pad"]);
  });
});
