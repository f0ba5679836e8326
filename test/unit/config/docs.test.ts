import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_OVERRIDES, allKeyPaths, parseConfigText } from "../../../src/config/index.ts";
import { PACKAGE_ROOT } from "../../../src/core/index.ts";

const docs = fs.readFileSync(path.join(PACKAGE_ROOT, "docs", "configuration.md"), "utf8");

describe("docs/configuration.md", () => {
  it("documents every key and env variable", () => {
    expect(allKeyPaths().filter((key) => !docs.includes(`\`${key}`))).toEqual([]);
    expect(ENV_OVERRIDES.filter(({ name }) => !docs.includes(`\`${name}\``))).toEqual([]);
  });

  it("has a complete example that validates", () => {
    const blocks = [...docs.matchAll(/```jsonc\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    const example = blocks[blocks.length - 1] ?? "";
    expect(example).toContain('"repos"');
    expect(parseConfigText(example, { file: "docs/configuration.md" }).problems).toEqual([]);
  });
});
