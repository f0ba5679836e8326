import fs from "node:fs";
import path from "node:path";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths.ts";

/** eslint.config.js is plain JavaScript (ESLint loads it without a TypeScript loader), so its types are stated here. */
type EslintConfigModule = { default: Linter.Config[]; FLOORS: unknown[]; layers: Linter.Config[] };
const {
  default: config,
  FLOORS,
  layers,
} = (await import(new URL("../../../eslint.config.js", import.meta.url).href)) as EslintConfigModule;

/*
 * The layer rule of eslint.config.js (docs/architecture.md, "Floors"), run through ESLint's API on
 * snippets placed in src/. Only the layer rules run, with the TypeScript parser: the repo's full
 * config lints with type information, which needs the file on disk and takes seconds per file.
 */
const eslint = new ESLint({
  cwd: PACKAGE_ROOT,
  overrideConfigFile: true,
  overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } }, ...layers],
});

/** The layer errors ESLint reports for `code` as the file `file` (a path under the repo root). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(PACKAGE_ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId?.startsWith("boundaries/")).map((m) => `${m.ruleId}: ${m.message}`);
}

const importing = (source: string) => `import { x } from "${source}";\nexport const y = x;\n`;

describe("layer rule", () => {
  it("is part of the repo's ESLint config", () => {
    expect(config).toEqual(expect.arrayContaining(layers));
  });

  it("refuses an upward import: core importing pr", async () => {
    const errors = await layerErrors("src/core/upward.ts", importing("../pr/index.ts"));
    expect(errors).toEqual([expect.stringContaining("boundaries/dependencies: core may not import ../pr/index.ts (pr/index)")]);
  });

  it("refuses a sideways import between folders on one floor: execute importing crew", async () => {
    expect(await layerErrors("src/execute/sideways.ts", importing("../crew/index.ts"))).toHaveLength(1);
  });

  it("refuses an import past a folder's index.ts", async () => {
    expect(await layerErrors("src/execute/inside.ts", importing("../spec/layout.ts"))).toHaveLength(1);
    expect(await layerErrors("src/build/inside.ts", importing("../pr/watch/plan.ts"))).toHaveLength(1);
  });

  it("refuses type imports, re-exports and dynamic imports upward as well", async () => {
    for (const code of [
      'import type { PrInfo } from "../pr/index.ts";\nexport type Y = PrInfo;\n',
      'export { OTTO_MARKER } from "../pr/index.ts";\n',
      'export const load = () => import("../pr/index.ts");\n',
    ]) {
      expect(await layerErrors("src/core/upward.ts", code)).toHaveLength(1);
    }
  });

  it("keeps pr/'s sub-folders on their own floors", async () => {
    expect(await layerErrors("src/pr/store/upward.ts", importing("../watch/plan.ts"))).toHaveLength(1);
    expect(await layerErrors("src/pr/upward.ts", importing("./store/store.ts"))).toHaveLength(1);
    expect(await layerErrors("src/pr/store/sideways.ts", importing("../../execute/index.ts"))).toHaveLength(1);
    expect(await layerErrors("src/pr/watch/down.ts", importing("../fix/index.ts"))).toEqual([]);
  });

  it("holds an exception to the file it names: a second file making the same arrow fails", async () => {
    expect(await layerErrors("src/guard/session-guard.ts", importing("../workspace/git.ts"))).toEqual([]);
    expect(await layerErrors("src/guard/another.ts", importing("../workspace/git.ts"))).toHaveLength(1);
    expect(await layerErrors("src/session/runner.ts", importing("../cost/meter.ts"))).toEqual([]);
    expect(await layerErrors("src/session/other.ts", importing("../cost/meter.ts"))).toHaveLength(1);
  });

  it("allows imports downward through index.ts, and core's modules one by one", async () => {
    expect(await layerErrors("src/execute/down.ts", importing("../spec/index.ts"))).toEqual([]);
    expect(await layerErrors("src/tools/down.ts", importing("../pr/index.ts"))).toEqual([]);
    expect(await layerErrors("src/session/down.ts", importing("../core/errors.ts"))).toEqual([]);
  });

  it("refuses a file in a folder that is not on the map", async () => {
    expect(await layerErrors("src/unmapped/file.ts", importing("../core/index.ts"))).toEqual([
      expect.stringContaining("boundaries/no-unknown-files"),
    ]);
  });

  it("maps every folder of src/", () => {
    const mapped = new Set(FLOORS.flat(3));
    const folders = (dir: string, prefix = ""): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${prefix}${entry.name}`);
    const src = path.join(PACKAGE_ROOT, "src");
    const expected = [...folders(src).filter((name) => name !== "pr"), ...folders(path.join(src, "pr"), "pr/")];
    expect(expected.filter((name) => !mapped.has(name))).toEqual([]);
  });
});
