import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigFile, buildJsonSchema, parseConfigText, renderJsonSchema } from "../../../src/config/index.ts";
import { PACKAGE_ROOT } from "../../../src/core/index.ts";

interface JsonSchemaNode {
  description?: string;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  additionalProperties?: unknown;
}

describe("otto.schema.json", () => {
  it("is what the generator produces now (run `npm run schema` after changing the zod schema)", () => {
    const committed = fs.readFileSync(path.join(PACKAGE_ROOT, "otto.schema.json"), "utf8");
    expect(committed).toBe(renderJsonSchema());
  });

  it("describes every key and rejects unknown ones", () => {
    const missing: string[] = [];
    const walk = (node: JsonSchemaNode, at: string): void => {
      if (node.properties) expect(node.additionalProperties, at).toBe(false);
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        const childAt = at ? `${at}.${key}` : key;
        if (!child.description) missing.push(childAt);
        walk(child, childAt);
      }
      if (node.items) walk(node.items, `${at}[]`);
    };
    walk(buildJsonSchema(), "");
    expect(missing).toEqual([]);
  });

  it("allows $schema so files can point editors at it", () => {
    expect(ConfigFile.safeParse({ $schema: "./otto.schema.json" }).success).toBe(true);
    expect(parseConfigText(`{ "$schema": "https://example.com/otto.schema.json" }`, { file: "f" }).problems).toEqual([]);
  });
});
