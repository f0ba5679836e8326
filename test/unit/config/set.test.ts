import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText, setConfigValue } from "../../../src/config/index.ts";
import { sandbox } from "./temp.ts";
import { SCHEMA_URL } from "../../../src/core/index.ts";

const commented = `{
  // Models for this repo
  "models": {
    "primary": "github-copilot/claude-opus-4.6" // the workhorse
  },
  /* spec tuning */
  "spec": {
    "max_parallel_tasks": 2,
  },
}
`;

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; fix?: string }> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as Error & { code?: string },
  );
}

describe("setConfigValue", () => {
  it("edits in place, keeping comments and formatting", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, commented);
    const result = await setConfigValue(box.repoFile, "spec.max_parallel_tasks", "6");
    expect(result).toMatchObject({
      file: box.repoFile,
      key: "spec.max_parallel_tasks",
      previous: 2,
      value: 6,
      changed: true,
      created: false,
    });
    expect(await box.read(box.repoFile)).toBe(commented.replace('"max_parallel_tasks": 2', '"max_parallel_tasks": 6'));

    await setConfigValue(box.repoFile, "models.secondary", "openai/gpt-5");
    const text = await box.read(box.repoFile);
    for (const comment of ["// Models for this repo", "// the workhorse", "/* spec tuning */"]) expect(text).toContain(comment);
    expect(parseConfigText(text, { file: box.repoFile }).value).toEqual({
      models: { primary: "github-copilot/claude-opus-4.6", secondary: "openai/gpt-5" },
      spec: { max_parallel_tasks: 6 },
    });
  });

  it("parses JSON values and keeps other text as strings", async () => {
    const box = await sandbox();
    await setConfigValue(box.userFile, "spec.task_briefing", "false");
    await setConfigValue(box.userFile, "spec.verify", '["npm test", "npm run lint"]');
    await setConfigValue(box.userFile, "spec.task_timeout", "45m");
    await setConfigValue(box.userFile, "opencode.password", "123456");
    expect(parseConfigText(await box.read(box.userFile), { file: box.userFile }).value).toEqual({
      $schema: SCHEMA_URL,
      spec: { task_briefing: false, verify: ["npm test", "npm run lint"], task_timeout: "45m" },
      // Digits only, but the key wants a string: kept as text.
      opencode: { password: "123456" },
    });
  });

  it("creates the file and its directories, secrets readable by the owner only", async () => {
    const box = await sandbox();
    const result = await setConfigValue(box.userFile, "pr.providers.github.token", "ghp_abcdefghijklmnopqrstuvwxyz");
    expect(result.created).toBe(true);
    const text = await box.read(box.userFile);
    // A new file starts with the schema line, for editors.
    expect(text.split("\n").slice(0, 2)).toEqual(["{", `  "$schema": "${SCHEMA_URL}",`]);
    expect(JSON.parse(text)).toEqual({ $schema: SCHEMA_URL, pr: { providers: { github: { token: "ghp_abcdefghijklmnopqrstuvwxyz" } } } });
    expect((await fs.stat(box.userFile)).mode & 0o777).toBe(0o600);
    expect(await fs.readdir(path.dirname(box.userFile))).toEqual(["otto.jsonc"]);
  });

  it("refuses an invalid value with a precise error and leaves the file byte-identical", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, commented);
    const before = await fs.readFile(box.repoFile);
    const error = await rejection(setConfigValue(box.repoFile, "spec.max_parallel_tasks", "lots", { scope: "repo" }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(`Refused to set spec.max_parallel_tasks in ${box.repoFile}; the file was not changed.`);
    expect(error.message).toMatch(/otto\.jsonc:8:27 spec\.max_parallel_tasks: expected a number, found "lots" \(string\)/);
    expect(await fs.readFile(box.repoFile)).toEqual(before);
    expect((await fs.readdir(path.dirname(box.repoFile))).sort()).toEqual(["otto.jsonc"]);
  });

  it("refuses without creating anything when the file did not exist", async () => {
    const box = await sandbox();
    await rejection(setConfigValue(box.userFile, "server.poll_interval", "often"));
    await expect(fs.stat(box.userFile)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("rejects unknown keys with a did-you-mean", async () => {
    const box = await sandbox();
    const error = await rejection(setConfigValue(box.repoFile, "spec.max_paralel_tasks", "3"));
    expect(error.code).toBe("config_unknown_key");
    expect(error.fix).toContain("max_parallel_tasks");
    expect(error.message).toContain("Did you mean 'spec.max_parallel_tasks'?");
  });

  it("refuses to edit a file with syntax errors", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, `{ "spec": { "verify": [ }`);
    const error = await rejection(setConfigValue(box.repoFile, "spec.task_briefing", "true"));
    expect(error.message).toMatch(/Cannot edit .*fix its JSONC syntax first/);
    expect(await box.read(box.repoFile)).toBe(`{ "spec": { "verify": [ }`);
  });

  it("still lets a broken file be repaired one key at a time", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, `{ "spec": { "max_parallel_tasks": 0, "task_timeout": "x" } }`);
    await setConfigValue(box.repoFile, "spec.max_parallel_tasks", "3");
    expect(parseConfigText(await box.read(box.repoFile), { file: "f" }).problems.map((p) => p.key)).toEqual(["spec.task_timeout"]);
  });

  it("reports no change when the value is already set, without rewriting", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, commented);
    const stat = await fs.stat(box.repoFile);
    const result = await setConfigValue(box.repoFile, "spec.max_parallel_tasks", "2");
    expect(result.changed).toBe(false);
    expect((await fs.stat(box.repoFile)).ino).toBe(stat.ino);
  });

  it("writes through a symlink to its target", async () => {
    const box = await sandbox();
    const target = path.join(box.root, "dotfiles", "otto.jsonc");
    await box.write(target, commented);
    await fs.mkdir(path.dirname(box.userFile), { recursive: true });
    await fs.symlink(target, box.userFile);
    await setConfigValue(box.userFile, "spec.max_parallel_tasks", "5");
    expect((await fs.lstat(box.userFile)).isSymbolicLink()).toBe(true);
    expect(await box.read(target)).toContain('"max_parallel_tasks": 5');
  });

  it("loses nothing when 10 sets run in parallel", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, commented);
    const sets: Array<[string, string]> = [
      ["spec.max_parallel_tasks", "7"],
      ["spec.task_timeout", "1h"],
      ["spec.max_task_retries", "3"],
      ["spec.task_briefing", "false"],
      ["spec.max_verify_fixes", "1"],
      ["server.port", "5000"],
      ["server.poll_interval", "5m"],
      ["pr.max_fix_attempts", "2"],
      ["pr.default_provider", "github"],
      ["models.fix", "openai/gpt-5"],
    ];
    await Promise.all(sets.map(([key, value]) => setConfigValue(box.repoFile, key, value)));
    const text = await box.read(box.repoFile);
    const parsed = parseConfigText(text, { file: box.repoFile });
    expect(parsed.problems).toEqual([]);
    expect(parsed.value).toEqual({
      models: { primary: "github-copilot/claude-opus-4.6", fix: "openai/gpt-5" },
      spec: { max_parallel_tasks: 7, task_timeout: "1h", max_task_retries: 3, task_briefing: false, max_verify_fixes: 1 },
      server: { port: 5000, poll_interval: "5m" },
      pr: { max_fix_attempts: 2, default_provider: "github" },
    });
    expect(text).toContain("// the workhorse");
    expect(await fs.readdir(path.dirname(box.repoFile))).toEqual(["otto.jsonc"]);
  });
});
