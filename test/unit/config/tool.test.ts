import fs from "node:fs/promises";
import path from "node:path";
import type { ToolContext } from "@opencode-ai/plugin";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/core/index.ts";
import { EventBus, SCHEMA_URL, silentLogger } from "../../../src/core/index.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { configCommand } from "../../../src/tools/config.ts";
import { sandbox, type Sandbox } from "./temp.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";

const GH_TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ0123";
const ADO_PAT = "adopat-secret-value-42";

function toolFor(directory: string, env: Env) {
  const runtime: Runtime = {
    client: {} as Runtime["client"],
    directory,
    worktree: directory,
    events: new EventBus(),
    log: silentLogger,
    env,
    once: new Set(),
    secrets: new KnownSecrets(),
    sessions: {} as Runtime["sessions"],
    guard: {} as Runtime["guard"],
    meter: {} as Runtime["meter"],
  };
  const toolCtx = {
    sessionID: "s",
    messageID: "m",
    agent: "otto",
    directory,
    worktree: directory,
    abort: new AbortController().signal,
    metadata: () => undefined,
    ask: () => Promise.resolve(),
  } satisfies ToolContext;
  const tool = configCommand(runtime);
  // Verbs with a title return { title, output, metadata }; the tests read what the user sees.
  return async (args: string) => {
    const result = await tool.execute({ args }, toolCtx);
    return typeof result === "string" ? result : result.output;
  };
}

async function withSecrets(): Promise<Sandbox> {
  const box = await sandbox();
  await box.write(box.userFile, `{ "pr": { "providers": { "ado": { "pat": "${ADO_PAT}" } } }, "models": { "primary": "u/p" } }`);
  await box.write(box.repoFile, `{ "spec": { "max_parallel_tasks": 8 } }`);
  return box;
}

describe("/otto-config show", () => {
  it("shows the merged config with sources, secrets masked", async () => {
    const box = await withSecrets();
    const out = await toolFor(box.repo, { ...box.env, GITHUB_TOKEN: GH_TOKEN })("show");
    expect(out).toContain(`- user: ${box.userFile}`);
    expect(out).toContain(`- repo: ${box.repoFile}`);
    expect(out).toContain(`"max_parallel_tasks": 8,  // repo`);
    expect(out).toContain(`"primary": "u/p"  // user`);
    expect(out).toContain(`"task_timeout": "30m",  // default`);
    expect(out).toMatch(/"token": "\[REDACTED\] \(\d+ chars\)".*\/\/ env \(GITHUB_TOKEN\)/);
    expect(out).toMatch(/"pat": "\[REDACTED\] \(22 chars\)".*\/\/ user/);
    expect(out).not.toContain(GH_TOKEN);
    expect(out).not.toContain(ADO_PAT);
  });

  it("--json prints masked JSON with sources", async () => {
    const box = await withSecrets();
    const out = await toolFor(box.repo, box.env)("show --json");
    const parsed = JSON.parse(out) as { config: { spec: { max_parallel_tasks: number } }; sources: Record<string, string> };
    expect(parsed.config.spec.max_parallel_tasks).toBe(8);
    expect(parsed.sources["spec.max_parallel_tasks"]).toBe(`repo (${box.repoFile})`);
    expect(out).not.toContain(ADO_PAT);
  });

  it("lists spec.verify and pr.verify as the flows run them: detected with their sources, or configured", async () => {
    const box = await sandbox();
    await box.write(path.join(box.repo, "package.json"), JSON.stringify({ name: "p", scripts: { test: "vitest run", lint: "eslint ." } }));
    await box.write(path.join(box.repo, "pnpm-lock.yaml"), "");
    await box.write(box.repoFile, `{ "pr": { "verify": ["make ci"] } }`);
    const out = await toolFor(box.repo, box.env)("show");
    expect(out).toContain("- spec.verify (detected): pnpm test (package.json scripts.test), pnpm run lint (package.json scripts.lint)");
    expect(out).toContain("- pr.verify (configured): make ci");
    const json = JSON.parse(await toolFor(box.repo, box.env)("show --json")) as {
      checks: Record<string, { origin: string; checks: unknown[] }>;
    };
    expect(json.checks["spec.verify"]).toEqual({
      origin: "detected",
      checks: [
        { command: "pnpm test", source: "package.json scripts.test" },
        { command: "pnpm run lint", source: "package.json scripts.lint" },
      ],
    });
    expect(json.checks["pr.verify"]).toEqual({ origin: "configured", checks: [{ command: "make ci", source: "pr.verify" }] });
    // Which sandbox the code of otto's work runs in here.
    expect(out).toMatch(/^Sandbox: (bwrap \(.*\): sessions' shell commands, checks and hooks run|none available)/m);
    expect(["bwrap", "sandbox-exec", "none"]).toContain((json as unknown as { sandbox: { active: string } }).sandbox.active);
    await box.write(box.userFile, `{ "sandbox": "off" }`);
    expect(await toolFor(box.repo, box.env)("show")).toContain('Sandbox: off (otto.jsonc sandbox: "off")');
    // An explicit [] runs nothing, and says so.
    await box.write(box.repoFile, `{ "spec": { "verify": [] } }`);
    expect(await toolFor(box.repo, box.env)("show")).toContain("- spec.verify (configured): none ([])");
  });

  it("says which flows each unset model role leaves without a model", async () => {
    const box = await sandbox();
    const out = await toolFor(box.repo, box.env)("show");
    expect(out).toContain("Model roles not set (set one: /otto-config set models.primary <provider/model>");
    expect(out).toContain("- models.primary: unset. Commands you run use your session's model instead (and say so), but the PR watcher");
    expect(out).toContain("the same model that wrote what they review: no second opinion.");
    await box.write(box.repoFile, `{ "models": { "primary": "a/b", "secondary": "c/d", "reviewers": ["c/d"], "fix": "a/b" } }`);
    expect(await toolFor(box.repo, box.env)("show")).not.toContain("Model roles not set");
  });

  it("turns an invalid config into an error naming file:line:col", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, `{\n  "spec": { "max_parallel_tasks": true }\n}`);
    const out = await toolFor(box.repo, box.env)("show");
    expect(out).toMatch(/^Error: Invalid otto config \(1 problem\):/);
    expect(out).toContain(`${box.repoFile}:2:35 spec.max_parallel_tasks: expected a number, found true (boolean)`);
    expect(out).toContain("Next step: Fix each problem above, then run /otto-config validate.");
  });
});

describe("/otto-config set", () => {
  it("writes the repo file by default and says what changed where", async () => {
    const box = await withSecrets();
    const out = await toolFor(path.join(box.repo), box.env)("set spec.max_parallel_tasks 3");
    expect(out).toBe(`Set spec.max_parallel_tasks in the repo config ${box.repoFile}:\n  before: 8\n  after:  3`);
  });

  it("--user writes the user file and notes that the repo file wins", async () => {
    const box = await withSecrets();
    const out = await toolFor(box.repo, box.env)("set spec.max_parallel_tasks 5 --user");
    expect(out).toContain(`Set spec.max_parallel_tasks in the user config ${box.userFile}:`);
    expect(out).toContain("  before: (unset)");
    expect(out).toContain(`the repo config (${box.repoFile}) also sets spec.max_parallel_tasks and wins`);
    expect(await box.read(box.userFile)).toContain('"max_parallel_tasks": 5');
  });

  it("masks secrets it sets and notes env overrides", async () => {
    const box = await sandbox();
    const out = await toolFor(box.repo, { ...box.env, GITHUB_TOKEN: GH_TOKEN })(
      `set pr.providers.github.token ghp_fromconfigfile123456 --user`,
    );
    expect(out).toContain("after:  [REDACTED] (24 chars)");
    expect(out).toContain("GITHUB_TOKEN is set in the environment and wins over this file.");
    expect(out).not.toContain("ghp_fromconfigfile123456");
  });

  it("joins words and takes quoted JSON", async () => {
    const box = await sandbox();
    const run = toolFor(box.repo, box.env);
    await run(`set notify.command notify-send otto done`);
    await run(`set spec.verify '["npm test", "npm run lint"]'`);
    const text = await box.read(box.repoFile);
    expect(JSON.parse(text)).toEqual({
      $schema: SCHEMA_URL,
      notify: { command: "notify-send otto done" },
      spec: { verify: ["npm test", "npm run lint"] },
    });
  });

  it("takes key=value as well as key value, numbers and JSON included; a refusal names the next command", async () => {
    const box = await sandbox();
    const run = toolFor(box.repo, box.env);
    expect(await run("set spec.max_parallel_tasks=2")).toContain("after:  2");
    expect(await run(`set spec.verify='["npm test", "npm run lint"]'`)).toContain('after:  ["npm test","npm run lint"]');
    expect(await run(`set notify.command=notify-send otto done`)).toContain(`after:  "notify-send otto done"`);
    expect(JSON.parse(await box.read(box.repoFile))).toMatchObject({
      spec: { max_parallel_tasks: 2, verify: ["npm test", "npm run lint"] },
      notify: { command: "notify-send otto done" },
    });
    const refused = await run("set spec.verify=npm");
    expect(refused).toContain('spec.verify: expected an array, found "npm" (string)');
    expect(refused).toContain("the file was not changed");
    expect(refused).toContain("Next step: Run /otto-config set spec.verify <value> again with a value of the expected type");
    expect(refused).not.toContain("/otto-config validate");
    expect(await run("set spec.max_parallel_tasks")).toContain("Missing value for 'spec.max_parallel_tasks'.");
  });

  it("outside a git repository, writes the user file and says so", async () => {
    const box = await sandbox();
    const plain = path.join(box.root, "plain");
    await fs.mkdir(plain);
    const out = await toolFor(plain, box.env)("set spec.task_briefing false");
    expect(out).toContain(`in the user config ${box.userFile}`);
    expect(out).toContain("Not inside a git repository");
  });

  it("gives actionable errors for unknown keys, bad values and missing arguments", async () => {
    const box = await sandbox();
    const run = toolFor(box.repo, box.env);
    expect(await run("set spec.max_paralel_tasks 3")).toContain("Did you mean 'spec.max_parallel_tasks'?");
    const bad = await run("set server.port 99999");
    expect(bad).toContain("Refused to set server.port");
    expect(bad).toContain("expected a number at most 65535, found 99999 (number)");
    expect(await run("set spec.task_timeout")).toContain("Usage: /otto-config set <key> <value> | <key>=<value> [--user]");
    expect(await run("frobnicate")).toContain("unknown verb 'frobnicate'");
    await expect(fs.stat(box.repoFile)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("/otto-config validate and path", () => {
  it("prints OK with the file paths", async () => {
    const box = await withSecrets();
    const out = await toolFor(box.repo, box.env)("validate");
    expect(out).toBe(["OK", `  user: ${box.userFile}`, `  repo: ${box.repoFile}`].join("\n"));
  });

  it("lists every problem of both files", async () => {
    const box = await sandbox();
    await box.write(box.userFile, `{ "modles": {} }`);
    await box.write(box.repoFile, `{\n  "spec": {\n    "max_parallel_tasks": -1\n  }\n}`);
    const out = await toolFor(box.repo, box.env)("validate");
    expect(out).toContain("Invalid otto config (2 problems):");
    expect(out).toContain(`${box.userFile}:1:3 modles:`);
    expect(out).toContain(`Did you mean "models"?`);
    expect(out).toContain(`${box.repoFile}:3:27 spec.max_parallel_tasks: expected a number at least 1, found -1 (number)`);
  });

  it("path prints both files", async () => {
    const box = await sandbox();
    expect(await toolFor(box.repo, box.env)("path")).toBe(`user: ${box.userFile}\nrepo: ${box.repoFile}`);
  });
});

describe("/otto-config secrets and trust", () => {
  it("set of a secret key writes the user file even without --user, and says why", async () => {
    const box = await sandbox();
    const out = await toolFor(box.repo, box.env)("set pr.providers.ado.pat ado-secret-123");
    expect(out).toContain(`Set pr.providers.ado.pat in the user config ${box.userFile}`);
    expect(out).toContain("is a secret, so it went to your user config, never the repo config");
    expect(out).not.toContain("ado-secret-123");
    expect(await box.read(box.userFile)).toContain("ado-secret-123");
    await expect(fs.stat(box.repoFile)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("validate warns about a credential in the repo file without showing it", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, `{ "pr": { "providers": { "github": { "token": "${GH_TOKEN}" } } } }`);
    const out = await toolFor(box.repo, box.env)("validate");
    expect(out).toMatch(/^OK, with warnings/);
    expect(out).toContain("pr.providers.github.token: a secret");
    expect(out).not.toContain(GH_TOKEN);
  });

  it("show says what it ignored; trust makes it count; trust --list and --revoke", async () => {
    const box = await sandbox();
    await box.write(
      box.repoFile,
      `{ "pr": { "providers": { "github": { "api_url": "https://ghe.example.com/api/v3" } } }, "notify": { "webhooks": [{ "type": "slack", "url": "https://hooks.slack.com/services/T/B/sig123" }] } }`,
    );
    const run = toolFor(box.repo, box.env);
    const before = await run("show");
    expect(before).toContain('"api_url": "https://api.github.com"');
    expect(before).toContain("Ignored pr.providers.github.api_url, notify.webhooks");
    const trusted = await run("trust");
    expect(trusted).toContain(`Trusted ${box.repo}`);
    expect(trusted).toContain('pr.providers.github.api_url: "https://ghe.example.com/api/v3"');
    expect(trusted).toContain("notify.webhooks[0].url: [REDACTED] (43 chars) (host hooks.slack.com)");
    expect(trusted).not.toContain("sig123");
    const after = await run("show");
    expect(after).toContain('"api_url": "https://ghe.example.com/api/v3"');
    expect(after).not.toContain("Ignored");
    expect(await run("trust --list")).toContain(`- ${box.repo} (since `);
    expect(await run("trust --revoke")).toContain("is no longer trusted");
    expect(await run("show")).toContain("Ignored pr.providers.github.api_url");
  });
});
