import path from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths.ts";

/** The repo's Prettier options for `file` (a path under the repo root), as `npm run lint` uses them. */
async function optionsFor(file: string): Promise<prettier.Options> {
  const filepath = path.join(PACKAGE_ROOT, file);
  return { ...(await prettier.resolveConfig(filepath, { editorconfig: true })), filepath };
}

const ignored = async (file: string) =>
  (await prettier.getFileInfo(path.join(PACKAGE_ROOT, file), { ignorePath: path.join(PACKAGE_ROOT, ".prettierignore") })).ignored;

describe("formatting (npm run format / npm run lint)", () => {
  it("fails an unformatted snippet and passes it once formatted", async () => {
    const options = await optionsFor("src/core/snippet.ts");
    const unformatted = "export const  answer = { a:1,b : 'two' }\n";
    expect(await prettier.check(unformatted, options)).toBe(false);
    const formatted = await prettier.format(unformatted, options);
    expect(formatted).toBe('export const answer = { a: 1, b: "two" };\n');
    expect(await prettier.check(formatted, options)).toBe(true);
  });

  it("wraps at 140 columns", async () => {
    const options = await optionsFor("src/core/snippet.ts");
    const call = (width: number) => `f(${JSON.stringify("x".repeat(width - 'f("");'.length))});\n`;
    expect(await prettier.check(call(140), options)).toBe(true);
    expect(await prettier.check(call(141), options)).toBe(false);
  });

  it("leaves markdown and generated files alone", async () => {
    for (const file of ["prompts/design.md", "agents/otto.md", "commands/otto-agent.md", "docs/architecture.md", "README.md"]) {
      expect(await ignored(file), file).toBe(true);
    }
    for (const file of ["src/host/asset-manifest.ts", "src/tools/manifest.ts", "otto.schema.json", "test/fixtures/spec/x.ts"]) {
      expect(await ignored(file), file).toBe(true);
    }
    expect(await ignored("src/index.ts")).toBe(false);
    expect(await ignored("eslint.config.js")).toBe(false);
  });
});
