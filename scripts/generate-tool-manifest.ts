/**
 * Writes src/tools/manifest.ts (the name, description and argument schema of every otto tool) and
 * src/host/asset-manifest.ts (otto's agents and commands), so the plugin registers them at load
 * without importing the code behind the tools or a YAML parser (load time is measured in
 * bench/startup.ts). Unit tests fail when a manifest no longer matches its sources.
 * Run: npm run manifest
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderAssetManifest } from "../src/host/render-assets.ts";
import { renderToolManifest } from "../src/tools/render-manifest.ts";

const src = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src");
for (const [file, text] of [
  [path.join(src, "tools", "manifest.ts"), renderToolManifest()],
  [path.join(src, "host", "asset-manifest.ts"), renderAssetManifest()],
] as const) {
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${file}\n`);
}
