import { describe, expect, it } from "vitest";
import { countLanguages, languageOf } from "../../../src/analysis/detect-languages.ts";
import { chooseSample } from "../../../src/analysis/sample-sources.ts";
import { scanSource } from "../../../src/analysis/scan-source.ts";
import type { Signals } from "../../../src/analysis/types.ts";

describe("chooseSample", () => {
  it("prefers entrypoints and convention hot spots, skips generated and fixture files, and caps", () => {
    const files = [
      "README.md",
      "internal/store/a.go",
      "internal/store/b.go",
      "internal/store/c.go",
      "internal/errors.go",
      "internal/store/a_test.go",
      "cmd/server/main.go",
      "api/v1/zz_generated.deepcopy.go",
      "api/v1/orders.pb.go",
      "test/fixtures/app/index.ts",
      "web/types.d.ts",
    ];
    expect(chooseSample(files, 4)).toEqual(["cmd/server/main.go", "internal/errors.go", "internal/store/a_test.go", "internal/store/a.go"]);
    expect(chooseSample(files, 100)).toHaveLength(6);
  });

  it("spreads the rest across directories", () => {
    const files = ["a/1.py", "a/2.py", "a/3.py", "b/1.py", "c/1.py"];
    expect(chooseSample(files, 3)).toEqual(["a/1.py", "b/1.py", "c/1.py"]);
  });
});

describe("scanSource", () => {
  it("counts Go error wrapping and captures sentinel names", () => {
    const signals: Signals = new Map();
    scanSource(
      "store.go",
      'var ErrNotFound = errors.New("not found")\nreturn fmt.Errorf("load %s: %w", id, err)\nif errors.Is(err, ErrNotFound) {}\n',
      signals,
    );
    expect(signals.get("go.sentinel")).toEqual({ count: 1, files: ["store.go"], names: ["ErrNotFound"] });
    expect(signals.get("go.errorf-wrap")?.count).toBe(1);
    expect(signals.get("go.errors-is")?.count).toBe(1);
  });

  it("applies patterns only to their languages", () => {
    const signals: Signals = new Map();
    scanSource("notes.py", "class Oops extends Error {}\n", signals);
    expect(signals.size).toBe(0);
    scanSource("oops.ts", "export class Oops extends Error {}\nimport { test } from 'node:test';\n", signals);
    expect([...signals.keys()]).toEqual(["js.error-class", "js.node-test"]);
  });
});

describe("languages", () => {
  it("maps extensions and counts most-used first", () => {
    expect(languageOf("src/App.TSX")).toBe("TypeScript");
    expect(languageOf("Makefile")).toBeUndefined();
    expect(languageOf(".eslintrc")).toBeUndefined();
    expect(countLanguages(["a.go", "b.go", "c.py", "d.json", "e.rs"])).toEqual([
      { name: "Go", files: 2 },
      { name: "Python", files: 1 },
      { name: "Rust", files: 1 },
    ]);
  });
});
