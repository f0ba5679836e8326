import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Hooks, PluginInput, ToolContext } from "@opencode-ai/plugin";
import { describe, expect, it, vi } from "vitest";

/** A client that records every call, at any depth (`app.log`, `_client.get`, …), and answers each with `{}`. */
function recordingClient(): { client: PluginInput["client"]; calls: string[] } {
  const calls: string[] = [];
  const at = (trail: string): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => (key === "then" ? undefined : at(trail ? `${trail}.${String(key)}` : String(key))),
      apply: (_target, _this, args: unknown[]) => {
        const url = (args[0] as { url?: unknown } | undefined)?.url;
        calls.push(typeof url === "string" ? `${trail} ${url}` : trail);
        return Promise.resolve({ data: {} });
      },
    });
  return { client: at("") as PluginInput["client"], calls };
}

describe("the plugin module", () => {
  it("exports only the default { id, server } that OpenCode 1.18.29+ loads (a named function export would load a second plugin)", async () => {
    const mod = (await import("../../../src/index.ts")) as Record<string, unknown>;
    expect(Object.keys(mod)).toEqual(["default"]);
    const entry = mod.default as { id: unknown; server: unknown };
    expect(Object.keys(entry).sort()).toEqual(["id", "server"]);
    expect(entry.id).toBe("opencode-otto");
    expect(typeof entry.server).toBe("function");
  });

  it("makes no request while OpenCode loads it; the first otto tool call asks the host's version", async () => {
    const { default: entry } = (await import("../../../src/index.ts")) as { default: { server: (input: PluginInput) => Promise<Hooks> } };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-entry-"));
    try {
      const { client, calls } = recordingClient();
      const hooks = await entry.server({ client, directory: dir, worktree: dir } as unknown as PluginInput);
      await hooks.config?.({});
      expect(calls).toEqual([]);

      const ctx = {
        sessionID: "ses_1",
        messageID: "msg_1",
        agent: "build",
        directory: dir,
        worktree: dir,
        abort: new AbortController().signal,
        metadata: () => undefined,
      } as unknown as ToolContext;
      await hooks.tool?.otto_config?.execute({ args: "path" }, ctx).catch(() => undefined);
      // The tool's own request is the positive control and the later event on the same client: a
      // request the load started (a deferred one included) would come before it or beside it.
      await vi.waitFor(() => expect(calls).toContain("_client.get /global/health"));
      expect(calls[0]).toBe("_client.get /global/health");
      expect(calls.filter((c) => c === "_client.get /global/health")).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
