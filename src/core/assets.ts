import fs from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { OttoError } from "./errors.ts";
import { matterOptions } from "./frontmatter.ts";
import { PACKAGE_ROOT } from "./paths.ts";

export type AssetFolder = "prompts" | "agents" | "commands";

export interface MarkdownAsset {
  name: string;
  file: string;
  data: Record<string, unknown>;
  body: string;
}

/** Resolves `<dir>/<name>.md`, refusing names that would leave `dir` (../x, absolute paths, separators). */
export function assetPath(dir: string, name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..")) {
    throw new OttoError("asset_name", `Invalid asset name '${name}': use letters, digits, '.', '-' and '_' only.`);
  }
  const file = path.resolve(dir, `${name}.md`);
  if (path.dirname(file) !== path.resolve(dir)) {
    throw new OttoError("asset_name", `Asset '${name}' resolves outside ${dir}.`);
  }
  return file;
}

export function builtinDir(folder: AssetFolder): string {
  return path.join(PACKAGE_ROOT, folder);
}

/** Names (without .md) of the markdown files in a folder; [] when it does not exist. */
export function listAssetNames(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

/** Reads one markdown asset with its frontmatter; undefined when the file does not exist. */
export function readMarkdownAsset(dir: string, name: string): MarkdownAsset | undefined {
  const file = assetPath(dir, name);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const parsed = matter(text, matterOptions());
  return { name, file, data: parsed.data, body: parsed.content.trim() };
}
