import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { renderAssetManifest } from "../../../src/host/render-assets.ts";
import { renderToolManifest } from "../../../src/tools/render-manifest.ts";

describe("tool manifest", () => {
  it("matches the tools (run `npm run manifest` after changing a tool's description or arguments)", () => {
    const committed = fs.readFileSync(new URL("../../../src/tools/manifest.ts", import.meta.url), "utf8");
    expect(committed).toBe(renderToolManifest());
  });

  it("matches agents/*.md and commands/*.md (run `npm run manifest` after changing one)", () => {
    const committed = fs.readFileSync(new URL("../../../src/host/asset-manifest.ts", import.meta.url), "utf8");
    expect(committed).toBe(renderAssetManifest());
  });
});
