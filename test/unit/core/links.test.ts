import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT, REPO_URL, docsUrl } from "../../../src/core/index.ts";

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith(".ts") ? [file] : [];
  });
}

/** The text of every string literal and template part in `file` (comments are not nodes, so not included). */
function strings(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe("links to the documentation", () => {
  const files = sourceFiles(path.join(PACKAGE_ROOT, "src"));

  it("point to GitHub, not to a docs/ folder an installed package does not have", () => {
    const offenders = files.flatMap((file) =>
      strings(file)
        .filter((s) => /(^|[\s(`'"])docs\/[\w.-]+\.md/.test(s))
        .map((s) => `${path.relative(PACKAGE_ROOT, file)}: ${s}`),
    );
    expect(offenders).toEqual([]);
    expect(docsUrl("configuration.md")).toBe(`${REPO_URL}/blob/main/docs/configuration.md`);
  });

  it("name pages that exist", () => {
    const pages = files.flatMap((file) => [...fs.readFileSync(file, "utf8").matchAll(/docsUrl\("([^"]+)"\)/g)].map((m) => m[1] ?? ""));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(fs.existsSync(path.join(PACKAGE_ROOT, "docs", page)), page).toBe(true);
  });
});
