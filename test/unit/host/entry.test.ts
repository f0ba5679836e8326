import { describe, expect, it } from "vitest";

describe("the plugin module", () => {
  it("exports only the default { id, server } that OpenCode 1.18.29+ loads (a named function export would load a second plugin)", async () => {
    const mod = (await import("../../../src/index.ts")) as Record<string, unknown>;
    expect(Object.keys(mod)).toEqual(["default"]);
    const entry = mod.default as { id: unknown; server: unknown };
    expect(Object.keys(entry).sort()).toEqual(["id", "server"]);
    expect(entry.id).toBe("opencode-otto");
    expect(typeof entry.server).toBe("function");
  });
});
