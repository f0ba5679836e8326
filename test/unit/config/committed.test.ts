import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertNoCommittedSecrets, findRepoFileSecrets, loadConfig, validateConfig } from "../../../src/config/index.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";
import { runGit } from "../../../src/workspace/index.ts";
import { silentLogger } from "../../../src/core/index.ts";
import { sandbox } from "./temp.ts";

const TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

describe("credentials in the repo config", () => {
  it("finds secret keys, credential-like values and commented tokens, never showing them", () => {
    const text = [
      "{",
      `  "pr": { "providers": { "github": { "token": "short-but-secret" } } },`,
      `  "notify": { "command": "curl -H 'Authorization: token abcdef123456' https://x" },`,
      `  // old token: ${TOKEN}`,
      `  "spec": { "verify": ["npm test"] }`,
      "}",
    ].join("\n");
    const found = findRepoFileSecrets(text, "/r/.otto/otto.jsonc");
    expect(found.map((f) => [f.key, f.line, f.kind])).toEqual([
      ["pr.providers.github.token", 2, "secret key"],
      ["notify.command", 3, "credential-like value"],
      ["(comment)", 4, "credential-like value"],
    ]);
    expect(JSON.stringify(found)).not.toContain("short-but-secret");
    expect(findRepoFileSecrets(`{ "spec": { "verify": ["npm test"] }, "models": { "primary": "a/b" } }`, "f")).toEqual([]);
  });

  it("validate reports them and secrets too short to redact", async () => {
    const box = await sandbox();
    await box.write(box.repoFile, `{ "pr": { "providers": { "ado": { "pat": "${TOKEN}" } } } }`);
    await box.write(box.userFile, `{ "opencode": { "password": "ab" } }`);
    const report = await validateConfig({ directory: box.repo, env: box.env });
    const text = report.warnings.join("\n");
    expect(text).toContain(`${box.repoFile}:1 pr.providers.ado.pat: a secret`);
    expect(text).toContain("the value of opencode.password is shorter than 3 characters");
    expect(text).not.toContain(TOKEN);
  });

  it("refuses a commit that would take the repo config with a credential; an ignored file is fine", async () => {
    const box = await sandbox();
    await fs.rm(path.join(box.repo, ".git"), { recursive: true });
    execFileSync("git", ["init", "-q", box.repo]);
    const git = (args: string[], options: { cwd: string }) => runGit(args, options);
    await assertNoCommittedSecrets(box.repo, git); // no file
    await box.write(box.repoFile, `{ "pr": { "providers": { "github": { "token": "${TOKEN}" } } } }`);
    const refused = assertNoCommittedSecrets(path.join(box.repo, ".otto"), git);
    await expect(refused).rejects.toMatchObject({ code: "config_secret_in_repo" });
    await expect(refused).rejects.not.toThrow(TOKEN);
    await fs.writeFile(path.join(box.repo, ".gitignore"), ".otto/otto.jsonc\n");
    await assertNoCommittedSecrets(box.repo, git);
  });

  it("loadConfig adds the config's secrets to the runtime's known secrets and returns them all", async () => {
    const box = await sandbox();
    await box.write(
      box.userFile,
      `{ "notify": { "webhooks": [{ "type": "json", "url": "https://hooks.example.com/a?sig=s1" }] }, "opencode": { "password": "pw9" } }`,
    );
    const secrets = new KnownSecrets(["from-env-earlier"]);
    const loaded = await loadConfig({
      directory: box.repo,
      env: { ...box.env, SYSTEM_ACCESSTOKEN: "ado-job-token", GH_TOKEN: "gh-cli-token" },
      runtime: { secrets, log: silentLogger },
    });
    for (const value of ["https://hooks.example.com/a?sig=s1", "pw9", "ado-job-token", "gh-cli-token", "from-env-earlier"]) {
      expect(loaded.secrets).toContain(value);
    }
    expect(secrets.values()).toContain("pw9");
  });
});
