import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths.ts";

/*
 * @opencode-ai/plugin and @opencode-ai/sdk are devDependencies: a user's install does not have
 * them, so src/ may take only types from them. `import { type X }` does not count: with
 * verbatimModuleSyntax it still loads the module (as `import {} from`).
 */
const HOST_PACKAGES = /^@opencode-ai\/(plugin|sdk)(\/|$)/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith(".ts") ? [file] : [];
  });
}

/** Every import of a host package in `code` that loads it at run time, as "line: text". */
function valueImports(code: string, fileName = "file.ts"): string[] {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push(`${line}: ${node.getText(source).split("\n")[0]}`);
  };
  const visit = (node: ts.Node): void => {
    const from = (spec: ts.Node | undefined) => spec !== undefined && ts.isStringLiteral(spec) && HOST_PACKAGES.test(spec.text);
    if (ts.isImportDeclaration(node) && from(node.moduleSpecifier) && !node.importClause?.isTypeOnly) report(node);
    if (ts.isExportDeclaration(node) && from(node.moduleSpecifier) && !node.isTypeOnly) report(node);
    if (
      ts.isImportEqualsDeclaration(node) &&
      !node.isTypeOnly &&
      ts.isExternalModuleReference(node.moduleReference) &&
      from(node.moduleReference.expression)
    )
      report(node);
    if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      from(node.arguments[0])
    )
      report(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("host packages at run time", () => {
  it("finds value imports and lets type-only ones through", () => {
    const code = [
      'import type { Plugin } from "@opencode-ai/plugin";',
      'import { tool } from "@opencode-ai/plugin";',
      'import { type Event } from "@opencode-ai/sdk";',
      'import type { X } from "@opencode-ai/sdk/v2";',
      'export { tool } from "@opencode-ai/plugin/tool";',
      'export type { ToolContext } from "@opencode-ai/plugin";',
      'const sdk = await import("@opencode-ai/sdk");',
      'type Client = typeof import("@opencode-ai/sdk");',
      'import { z } from "zod";',
    ].join("\n");
    expect(valueImports(code)).toEqual([
      '2: import { tool } from "@opencode-ai/plugin";',
      '3: import { type Event } from "@opencode-ai/sdk";',
      '5: export { tool } from "@opencode-ai/plugin/tool";',
      '7: import("@opencode-ai/sdk")',
    ]);
  });

  it("src/ imports only types from @opencode-ai/plugin and @opencode-ai/sdk", () => {
    const src = path.join(PACKAGE_ROOT, "src");
    const offenders = sourceFiles(src).flatMap((file) =>
      valueImports(fs.readFileSync(file, "utf8"), file).map((hit) => `${path.relative(PACKAGE_ROOT, file)}:${hit}`),
    );
    expect(offenders, "use `import type`, and src/tools/tool.ts for tool()").toEqual([]);
  });

  it("package.json keeps them out of the dependencies a user installs", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    for (const name of ["@opencode-ai/plugin", "@opencode-ai/sdk"]) {
      expect(pkg.dependencies?.[name], name).toBeUndefined();
      expect(pkg.devDependencies?.[name], name).toBeDefined();
    }
  });
});
