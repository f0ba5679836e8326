import { describe, expect, it } from "vitest";
import type { Logger, LogLevel } from "../../../src/core/index.ts";
import { checkHostVersion, hostVersionWarning, MIN_OPENCODE_VERSION } from "../../../src/host/version.ts";
import type { OpencodeClient } from "../../../src/runtime.ts";

function recorder(): Logger & { lines: Array<{ level: LogLevel; message: string }> } {
  const lines: Array<{ level: LogLevel; message: string }> = [];
  return { lines, log: (level, message) => void lines.push({ level, message }) };
}

/** A v1 client whose raw transport answers GET /global/health with `answer`. */
function clientAnswering(answer: () => Promise<{ data?: unknown }>): { client: OpencodeClient; urls: string[] } {
  const urls: string[] = [];
  const raw = { get: (options: { url: string }) => (urls.push(options.url), answer()) };
  return { client: { _client: raw } as unknown as OpencodeClient, urls };
}

describe("host version", () => {
  it("warns about an older OpenCode only", () => {
    expect(hostVersionWarning("1.17.9", "1.18.0")).toMatch(/otto needs OpenCode 1\.18\.0 or newer, and this is OpenCode 1\.17\.9/);
    expect(hostVersionWarning("0.15.2", "1.18.0")).toBeDefined();
    expect(hostVersionWarning("1.18.0", "1.18.0")).toBeUndefined();
    expect(hostVersionWarning("1.18.33", "1.18.0")).toBeUndefined();
    expect(hostVersionWarning("2.0.0", "1.18.0")).toBeUndefined();
    expect(hostVersionWarning("1.9.0", "1.18.0")).toBeDefined(); // numeric, not string, order
  });

  it("does not guess about versions it cannot read", () => {
    for (const v of ["0.0.0-dev-202611", "local", "", "1.18"]) expect(hostVersionWarning(v, "1.18.0"), v).toBeUndefined();
  });

  it("asks /global/health and logs a warning for an old host", async () => {
    const log = recorder();
    const { client, urls } = clientAnswering(async () => ({ data: { healthy: true, version: "1.2.3" } }));
    await checkHostVersion(client, log);
    expect(urls).toEqual(["/global/health"]);
    expect(log.lines.map((l) => l.level)).toEqual(["warn"]);
    expect(log.lines[0]?.message).toContain(`otto needs OpenCode ${MIN_OPENCODE_VERSION} or newer, and this is OpenCode 1.2.3`);
  });

  it("stays silent for a current host, a failing route or a client without transport", async () => {
    const log = recorder();
    await checkHostVersion(clientAnswering(async () => ({ data: { healthy: true, version: MIN_OPENCODE_VERSION } })).client, log);
    await checkHostVersion(clientAnswering(() => Promise.reject(new Error("no route"))).client, log);
    await checkHostVersion(clientAnswering(async () => ({ data: undefined })).client, log);
    await checkHostVersion({} as OpencodeClient, log);
    expect(log.lines).toEqual([]);
  });
});
