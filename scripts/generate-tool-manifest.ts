/**
 * Writes src/tools/manifest.ts: the name, description and argument schema of every otto tool, so
 * the plugin can register its tools at load without importing the code behind them (load time is
 * measured in bench/run.ts). A unit test fails when the manifest no longer matches the tools.
 * Run: npm run manifest
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderToolManifest } from "../src/tools/render-manifest.ts";

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "tools", "manifest.ts");
fs.writeFileSync(file, renderToolManifest());
process.stdout.write(`wrote ${file}\n`);
