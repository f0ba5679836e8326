import { describe, expect, it } from "vitest";
import { MAX_RENDERED_LINES, renderCodebaseSummary, type CodebaseSummary } from "../../../src/analysis/index.ts";

function summary(overrides: Partial<CodebaseSummary> = {}): CodebaseSummary {
  return {
    root: "/somewhere/on/this/machine",
    empty: false,
    files: { total: 42, listedBy: "git", truncated: false },
    languages: [
      { name: "Go", files: 30 },
      { name: "Shell", files: 2 },
    ],
    manifests: [
      {
        path: "go.mod",
        kind: "go.mod",
        name: "example.com/op",
        toolchain: "go 1.22",
        dependencies: [{ name: "sigs.k8s.io/controller-runtime", version: "v0.18.4", ecosystem: "go", dev: false, manifest: "go.mod" }],
      },
    ],
    keyDependencies: [
      { name: "sigs.k8s.io/controller-runtime", version: "v0.18.4", ecosystem: "go", dev: false, manifest: "go.mod" },
      { name: "github.com/onsi/ginkgo/v2", version: "v2.17.1", ecosystem: "go", dev: false, manifest: "go.mod" },
    ],
    archetype: {
      kind: "k8s-operator",
      matches: [
        {
          kind: "k8s-operator",
          name: "Kubernetes controller/operator",
          evidence: ["sigs.k8s.io/controller-runtime v0.18.4 (go.mod)", "PROJECT"],
        },
      ],
    },
    conventions: {
      testing: [{ name: "Ginkgo/Gomega", evidence: ["github.com/onsi/ginkgo/v2 v2.17.1 (go.mod)"] }],
      logging: [{ name: "logr", evidence: ["controller-runtime log package (2× in cmd/main.go)"] }],
      metrics: [],
      tracing: [],
      config: [],
      validation: [],
      errors: [{ name: "wrapping with %w", evidence: ["a", "b", "c"] }],
      di: [],
    },
    layout: {
      topLevel: [
        { path: "internal/", files: 20 },
        { path: ".", files: 5 },
      ],
      notable: ["README.md", "Makefile"],
      packages: [],
    },
    sample: { files: 12, bytes: 4096 },
    notes: [],
    ...overrides,
  };
}

describe("renderCodebaseSummary", () => {
  it("renders the key lines and leaves out empty categories and the absolute root", () => {
    const lines = renderCodebaseSummary(summary()).split("\n");
    expect(lines.slice(0, 7)).toEqual([
      "## Codebase summary",
      "",
      "- **Archetype:** Kubernetes controller/operator — sigs.k8s.io/controller-runtime v0.18.4 (go.mod), PROJECT",
      "- **Languages:** Go (30), Shell (2)",
      "- **Files:** 42 (git ls-files)",
      "- **Manifests:** go.mod (example.com/op, go 1.22)",
      "",
    ]);
    expect(lines).toContain("- go.mod: sigs.k8s.io/controller-runtime v0.18.4, github.com/onsi/ginkgo/v2 v2.17.1");
    expect(lines).toContain("### Conventions (from manifests and 12 sampled source files)");
    expect(lines).toContain("- **Logging:** logr — controller-runtime log package (2× in cmd/main.go)");
    expect(lines).toContain("- **Error handling:** wrapping with %w — a, b, …");
    expect(lines).toContain("- Top level: internal/ 20, (root files) 5");
    expect(lines).toContain("- Notable: README.md, Makefile");
    const text = lines.join("\n");
    expect(text).not.toContain("Metrics");
    expect(text).not.toContain("### Notes");
    expect(text).not.toContain("/somewhere");
  });

  it("lists each archetype of a hybrid with its evidence", () => {
    const text = renderCodebaseSummary(
      summary({
        archetype: {
          kind: "hybrid",
          matches: [
            { kind: "rest-api", name: "REST API", evidence: ["express ^4 (package.json)"] },
            { kind: "cli", name: "CLI tool", evidence: ["executable entry (package.json)"] },
          ],
        },
      }),
    );
    expect(text).toContain(
      "- **Archetype:** hybrid (REST API, CLI tool)\n  - REST API: express ^4 (package.json)\n  - CLI tool: executable entry (package.json)",
    );
  });

  it("stays within the line budget however much was found", () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ name: `finding${i}`, evidence: ["x"] }));
    const big = summary({
      manifests: Array.from({ length: 40 }, (_, i) => ({ path: `p${i}/package.json`, kind: "package.json" as const, dependencies: [] })),
      keyDependencies: Array.from({ length: 25 }, (_, i) => ({
        name: `dep${i}`,
        ecosystem: "npm" as const,
        dev: false,
        manifest: `p${i}/package.json`,
      })),
      conventions: { testing: many, logging: many, metrics: many, tracing: many, config: many, validation: many, errors: many, di: many },
      layout: {
        topLevel: [],
        notable: [],
        packages: Array.from({ length: 30 }, (_, i) => ({ path: `p${i}`, kinds: ["package.json" as const] })),
      },
      notes: Array.from({ length: 20 }, (_, i) => `note ${i}`),
    });
    const lines = renderCodebaseSummary(big).split("\n");
    expect(lines.length).toBeLessThanOrEqual(MAX_RENDERED_LINES);
    expect(lines.find((l) => l.startsWith("- **Manifests:**"))).toMatch(/, \+34 more$/);
    expect(lines.find((l) => l.startsWith("- Packages:"))).toMatch(/, \+18 more$/);
  });

  it("says when the listing was truncated and shows notes", () => {
    const text = renderCodebaseSummary(
      summary({ files: { total: 20000, listedBy: "walk", truncated: true }, notes: ["Listing stopped at the 20000-file limit."] }),
    );
    expect(text).toContain("- **Files:** 20000+ (directory walk)");
    expect(text).toContain("### Notes\n- Listing stopped at the 20000-file limit.");
  });
});
