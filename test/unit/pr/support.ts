import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect } from "vitest";
import { resolveConfig, type Config } from "../../../src/config/index.ts";
import { type BackendDeps, type ExecResult } from "../../../src/pr/backend.ts";

/** A resolved config from a partial one (defaults filled), as otto would load it. */
export function testConfig(value: Record<string, unknown> = {}): Config {
  return resolveConfig({ layers: [{ scope: "user", file: "/u/otto.jsonc", value }], env: { HOME: "/home/test" } }).config;
}

export interface TestDeps extends BackendDeps {
  logs: string[];
  execCalls: Array<{ file: string; args: string[] }>;
  sleeps: number[];
}

/** Backend deps with millisecond retries, recorded sleeps, and CLIs that are "not installed" unless given. */
export function testDeps(config: Config, overrides: Partial<BackendDeps> & { cli?: Record<string, ExecResult> } = {}): TestDeps {
  const logs: string[] = [];
  const execCalls: TestDeps["execCalls"] = [];
  const sleeps: number[] = [];
  const { cli = {}, ...rest } = overrides;
  return {
    // GitHub writes at once (production spaces them by a second).
    config: {
      ...config,
      pr: { ...config.pr, providers: { ...config.pr.providers, github: { ...config.pr.providers.github, pause_writes: false } } },
    },
    env: {},
    fetch: globalThis.fetch,
    exec: async (file, args) => {
      execCalls.push({ file, args });
      return cli[file] ?? { exitCode: undefined, stdout: "" };
    },
    sleep: async (ms) => {
      sleeps.push(ms);
      await new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    },
    retryBaseMs: 2,
    log: (message) => logs.push(message),
    logs,
    execCalls,
    sleeps,
    ...rest,
  };
}

/** A temp dir removed after the test. */
export function useTempDir(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-pr-"));
    dirs.push(dir);
    return dir;
  };
}

/** A body as otto posts it: the text, then its post marker (src/pr/post-once.ts). */
export function postedBody(text: string): unknown {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return expect.stringMatching(new RegExp(`^${escaped}\\n\\n<!-- otto:post id=[0-9a-f-]+ -->$`));
}
