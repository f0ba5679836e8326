import { describe, expect, it } from "vitest";
import { resolveConfig, type ConfigLayer } from "../../../src/config/index.ts";

const env = { HOME: "/home/me", XDG_DATA_HOME: "/data" };
const user = (value: Record<string, unknown>): ConfigLayer => ({ scope: "user", file: "/u/otto.jsonc", value });
const repo = (value: Record<string, unknown>): ConfigLayer => ({ scope: "repo", file: "/r/.otto/otto.jsonc", value });

describe("resolveConfig defaults", () => {
  it("fills every default when nothing is written", () => {
    const { config } = resolveConfig({ layers: [], env });
    expect(config.spec).toEqual({
      max_parallel_tasks: 4,
      task_timeout: "30m",
      max_task_retries: 3,
      task_briefing: true,
      // Unset, not []: the flows detect the project's checks (an explicit [] runs none).
      max_verify_fixes: 2,
      verify_timeout: "10m",
      review_gate: true,
      external_assumptions: true,
      domain_hardening: true,
      docs_alignment: true,
      stage_timeout: "20m",
    });
    expect(config.server).toEqual({ poll_interval: "2m", port: 4097, log_dir: "/data/otto/logs" });
    expect(config.opencode).toEqual({ username: "opencode" });
    expect(config.pr.max_fix_attempts).toBe(5);
    expect(config.pr.verify).toBeUndefined();
    expect(config.pr.default_provider).toBeUndefined();
    expect(config.pr.providers.github).toEqual({ api_url: "https://api.github.com", hosts: [], pause_writes: true });
    expect(config.pr.providers.ado).toEqual({
      base_url: "https://dev.azure.com",
      auto_complete: true,
      merlinbot: true,
      bot_names: ["MerlinBot"],
      bot_ids: [],
      create_work_item: true,
    });
    expect(config.models).toEqual({});
    expect(config.repos).toEqual([]);
    expect(config.notify).toEqual({ webhooks: [], toast: true });
  });

  it("fills defaults inside written sections and array items, and expands ~/", () => {
    const { config } = resolveConfig({
      layers: [
        user({ spec: { max_parallel_tasks: 8 }, server: { log_dir: "~/logs" }, repos: [{ name: "svc", primary_dir: "~/src/svc" }] }),
      ],
      env,
    });
    expect(config.spec.max_parallel_tasks).toBe(8);
    expect(config.spec.task_timeout).toBe("30m");
    expect(config.server.log_dir).toBe("/home/me/logs");
    expect(config.repos).toEqual([{ name: "svc", primary_dir: "/home/me/src/svc", git_strategy: "worktree", branch_patterns: [] }]);
  });

  it("drops $schema from the resolved config", () => {
    const { config, sources } = resolveConfig({ layers: [user({ $schema: "./otto.schema.json" })], env });
    expect(config).not.toHaveProperty("$schema");
    expect(sources).not.toHaveProperty("$schema");
  });
});

describe("env overrides", () => {
  const files = [
    user({ pr: { providers: { github: { token: "file-gh-token" }, ado: { pat: "file-ado-pat" } } }, opencode: { password: "file-pw" } }),
  ];

  it("env wins over the files", () => {
    const { config, sources } = resolveConfig({
      layers: files,
      env: { ...env, GITHUB_TOKEN: "env-gh-token", OTTO_ADO_PAT: "env-ado-pat", OPENCODE_SERVER_PASSWORD: "env-pw" },
    });
    expect(config.pr.providers.github.token).toBe("env-gh-token");
    expect(config.pr.providers.ado.pat).toBe("env-ado-pat");
    expect(config.opencode.password).toBe("env-pw");
    expect(sources["pr.providers.github.token"]).toBe("env (GITHUB_TOKEN)");
    expect(sources["pr.providers.ado.pat"]).toBe("env (OTTO_ADO_PAT)");
    expect(sources["opencode.password"]).toBe("env (OPENCODE_SERVER_PASSWORD)");
  });

  it("empty variables count as unset", () => {
    const { config } = resolveConfig({ layers: files, env: { ...env, GITHUB_TOKEN: "" } });
    expect(config.pr.providers.github.token).toBe("file-gh-token");
  });

  it("applies without any file", () => {
    const { config } = resolveConfig({ layers: [], env: { ...env, GITHUB_TOKEN: "t0ken-from-env" } });
    expect(config.pr.providers.github.token).toBe("t0ken-from-env");
  });

  it("lists every secret present in the files and the environment", () => {
    const { secrets } = resolveConfig({
      layers: files,
      env: { ...env, GITHUB_TOKEN: "env-gh-token", GH_TOKEN: "gh-cli-token", OPENCODE_SERVER_PASSWORD: "serve-pw" },
    });
    expect(secrets.sort()).toEqual(["env-gh-token", "file-ado-pat", "file-gh-token", "file-pw", "gh-cli-token", "serve-pw"]);
  });
});

describe("sources", () => {
  it("names the layer each leaf came from", () => {
    const { sources } = resolveConfig({
      layers: [
        user({ models: { primary: "u/p", secondary: "u/s" }, spec: { verify: ["npm test"] }, repos: [{ name: "a", primary_dir: "/a" }] }),
        repo({ models: { primary: "r/p" }, repos: [{ name: "b", primary_dir: "/b" }] }),
      ],
      env: { ...env, GITHUB_TOKEN: "ghp_example" },
    });
    expect(sources["models.primary"]).toBe("repo (/r/.otto/otto.jsonc)");
    expect(sources["models.secondary"]).toBe("user (/u/otto.jsonc)");
    expect(sources["spec.verify"]).toBe("user (/u/otto.jsonc)");
    expect(sources["spec.max_parallel_tasks"]).toBe("default");
    expect(sources["server.log_dir"]).toBe("default");
    expect(sources["repos"]).toBe("repo (/r/.otto/otto.jsonc)");
    expect(sources["pr.providers.github.token"]).toBe("env (GITHUB_TOKEN)");
    expect(sources["models.fix"]).toBeUndefined();
  });

  it("covers every leaf of the resolved config", () => {
    const { config, sources } = resolveConfig({ layers: [], env });
    const leaves: string[] = [];
    const walk = (value: unknown, prefix: string): void => {
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value)) walk(v, prefix ? `${prefix}.${k}` : k);
      } else if (value !== undefined) leaves.push(prefix);
    };
    walk(config, "");
    expect(Object.keys(sources).sort()).toEqual(leaves.sort());
    expect(new Set(Object.values(sources))).toEqual(new Set(["default"]));
  });
});
