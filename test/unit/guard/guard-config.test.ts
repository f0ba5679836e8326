import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../../../src/core/log.ts";
import {
  CONFIG_TTL_MS,
  DEFAULT_REPEATED_TOOL_CALLS,
  DEFAULT_SERVER_PORT,
  GuardConfig,
  forgeHosts,
  type GuardConfigDeps,
} from "../../../src/guard/guard-config.ts";

/*
 * What the guard reads from otto's config (guard-config.ts): the fields it keeps, a minute's reuse
 * per folder, the defaults when the file cannot be read. A fake loader, and once the real one.
 */

type Loaded = Awaited<ReturnType<NonNullable<GuardConfigDeps["load"]>>>;

function loaded(over: { hosts?: string[]; api_url?: string; base_url?: string; port?: number; limit?: number; secrets?: string[] } = {}) {
  return {
    config: {
      pr: {
        providers: {
          github: { api_url: over.api_url ?? "https://api.github.com", hosts: over.hosts ?? ["github.com"] },
          ado: { base_url: over.base_url ?? "https://dev.azure.com" },
        },
      },
      sandbox: "required",
      sandbox_access: { network: "none", allow_read: [], allow_write: [], allow_ports: [] },
      server: { port: over.port ?? 4321 },
      limits: { repeated_tool_calls: over.limit ?? 7 },
    },
    secrets: over.secrets ?? ["s3cret-value"],
  } as unknown as Loaded;
}

function setup(load: GuardConfigDeps["load"]) {
  const clock = { now: 5_000_000 };
  const logs: Array<[string, string, unknown]> = [];
  const log: Logger = { log: (level, message, extra) => logs.push([level, message, extra]) };
  const config = new GuardConfig({ env: { HOME: "/home/u" }, log, now: () => clock.now, ...(load ? { load } : {}) });
  return { config, clock, logs };
}

describe("GuardConfig", () => {
  it("keeps the forge hosts in lower case, the secrets, the sandbox and its access, the server port and the repeated-call limit", async () => {
    const asked: unknown[] = [];
    const { config } = setup(async (options) => {
      asked.push(options);
      return loaded({ hosts: ["Git.Corp.Example"], api_url: "https://GHE.Example.com/api/v3", base_url: "https://ADO.Corp.Example/org" });
    });
    expect(await config.of("/tree")).toEqual({
      hosts: ["git.corp.example", "ghe.example.com", "ado.corp.example"],
      secrets: ["s3cret-value"],
      sandbox: "required",
      sandboxAccess: { network: "none", allow_read: [], allow_write: [], allow_ports: [] },
      serverPort: 4321,
      repeatedToolCalls: 7,
    });
    expect(asked).toEqual([{ directory: "/tree", env: { HOME: "/home/u" } }]);
  });

  it("reuses a folder's config for a minute, then reads it again; another folder is read on its own", async () => {
    let reads = 0;
    const { config, clock } = setup(async () => loaded({ port: 1000 + ++reads }));
    expect((await config.of("/tree")).serverPort).toBe(1001);
    clock.now += CONFIG_TTL_MS - 1;
    expect((await config.of("/tree")).serverPort).toBe(1001);
    expect((await config.of("/other")).serverPort).toBe(1002);
    clock.now += 1;
    expect((await config.of("/tree")).serverPort).toBe(1003);
    expect((await config.of("/other")).serverPort).toBe(1002);
    expect(CONFIG_TTL_MS).toBe(60_000);
  });

  it("a config that cannot be read: one warning with the reason, the defaults, and they are reused too", async () => {
    let reads = 0;
    const { config, logs } = setup(async () => {
      reads++;
      throw new Error("otto.jsonc: line 1: not json");
    });
    const defaults = { hosts: [], secrets: [], sandbox: "auto", serverPort: 4097, repeatedToolCalls: 5 };
    expect(await config.of("/tree")).toEqual(defaults);
    expect(await config.of("/tree")).toEqual(defaults);
    expect(reads).toBe(1);
    expect(logs).toEqual([
      ["warn", "otto guard: could not read otto's config; using the defaults", { error: "otto.jsonc: line 1: not json" }],
    ]);
    expect([DEFAULT_SERVER_PORT, DEFAULT_REPEATED_TOOL_CALLS]).toEqual([4097, 5]);
  });

  it("a loader that throws outright, or throws no Error, still gives the defaults", async () => {
    const { config, logs } = setup(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a thrown non-Error is what is tested
      throw "not an error";
    });
    expect((await config.of("/tree")).serverPort).toBe(4097);
    expect(logs[0]?.[2]).toEqual({ error: "not an error" });
  });
});

describe("GuardConfig with otto's own loader", () => {
  let home: string | undefined;
  afterEach(() => {
    if (home) fs.rmSync(home, { recursive: true, force: true });
    home = undefined;
  });

  it("reads the user's otto.jsonc", async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-guard-config-"));
    fs.mkdirSync(path.join(home, "config", "otto"), { recursive: true });
    fs.writeFileSync(path.join(home, "config", "otto", "otto.jsonc"), JSON.stringify({ server: { port: 4555 } }));
    const tree = path.join(home, "tree");
    fs.mkdirSync(tree);
    const config = new GuardConfig({
      env: { HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), XDG_DATA_HOME: path.join(home, "data") },
      log: { log: () => undefined },
      now: () => 0,
    });
    expect((await config.of(tree)).serverPort).toBe(4555);
  });
});

describe("forgeHosts", () => {
  it("GitHub's hosts, then its API's host and Azure DevOps' host, lower case; a URL that does not parse adds nothing", () => {
    expect(
      forgeHosts({
        github: { api_url: "https://API.GitHub.com", hosts: ["GitHub.com", "x.Y"] },
        ado: { base_url: "https://Dev.Azure.com/o" },
      }),
    ).toEqual(["github.com", "x.y", "api.github.com", "dev.azure.com"]);
    expect(forgeHosts({ github: { api_url: "not a url", hosts: [] }, ado: { base_url: "https://ado.example" } })).toEqual(["ado.example"]);
  });
});
