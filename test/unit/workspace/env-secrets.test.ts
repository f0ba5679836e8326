import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/config/index.ts";
import { OttoError, envSecrets, redact } from "../../../src/core/index.ts";
import { pushBlockingEnv } from "../../../src/sandbox/index.ts";
import { commitChanges, runGit, snapshotTree, type GitRun } from "../../../src/workspace/index.ts";
import { gitEnv } from "../../support/git.ts";
import { clone } from "../repo/fixtures.ts";

/*
 * The environment's provider keys and every variable named like a credential are known secrets:
 * a session that runs `echo $ANTHROPIC_API_KEY > notes.txt` (outside the sandbox, or before it)
 * cannot get the value committed, and no log or message shows it.
 */

const run: GitRun = (args, options) => runGit(args, { ...options, env: gitEnv() });
const ANTHROPIC = "sk-ant-api03-envProbe0123456789abcdefABCDEF";

describe("secrets of the environment", () => {
  it("counts provider keys and *_KEY, *_TOKEN, *_SECRET, *PASSWORD* values, not short values nor paths", () => {
    const found = envSecrets({
      ANTHROPIC_API_KEY: ANTHROPIC,
      OPENAI_API_KEY: "sk-short",
      MY_SERVICE_TOKEN: "tok-0123456789abcdef",
      DB_PASSWORD: "correct-horse-battery",
      CLIENT_SECRET: "client-secret-value-01",
      FEATURE_KEY: "on",
      SSH_KEY: "/home/u/.ssh/id_ed25519_work",
      EDITOR: "vim-with-a-long-name-here",
    });
    expect(found.sort()).toEqual([ANTHROPIC, "client-secret-value-01", "correct-horse-battery", "sk-short", "tok-0123456789abcdef"].sort());
  });

  it("ANTHROPIC_API_KEY's value is redacted, blanked in a guarded shell, and refused by the commit's secret scan", async () => {
    const { secrets } = resolveConfig({ layers: [], env: { HOME: "/home/u", ANTHROPIC_API_KEY: ANTHROPIC } });
    expect(secrets).toContain(ANTHROPIC);
    expect(redact(`the key is ${ANTHROPIC}`, secrets)).not.toContain(ANTHROPIC);
    expect(pushBlockingEnv({ env: { ANTHROPIC_API_KEY: ANTHROPIC }, secrets }).ANTHROPIC_API_KEY).toBe("");

    const repo = await clone({ "README.md": "# app\n" });
    const baseline = await snapshotTree(run, repo.dir);
    fs.writeFileSync(path.join(repo.dir, "notes.txt"), `${ANTHROPIC}\n`);
    const head = await repo.git(["rev-parse", "HEAD"]);
    const error = await commitChanges(run, repo.dir, { message: "otto: notes", baseline, secrets }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OttoError);
    expect((error as OttoError).code).toBe("secret_in_commit");
    expect((error as OttoError).message).toContain("notes.txt");
    expect((error as OttoError).message).not.toContain(ANTHROPIC);
    expect(await repo.git(["rev-parse", "HEAD"])).toBe(head);
  });
});
