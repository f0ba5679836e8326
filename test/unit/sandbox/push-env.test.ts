import path from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { protectedVariables, pushBlockingEnv, TOKEN_VARIABLES } from "../../../src/sandbox/index.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";
import { recordFigure } from "../../support/figures.ts";

/** Runs a shell line in `cwd` with the environment a guarded session's shell gets. */
async function guardedShell(line: string, cwd: string, extra: Record<string, string> = {}) {
  const base = gitEnv(extra);
  const env = { ...base, ...pushBlockingEnv({ env: base }) };
  const result = await execa("sh", ["-c", line], { cwd, env, extendEnv: false, reject: false, stdin: "ignore", timeout: 30_000 });
  return { exitCode: result.exitCode, output: `${result.stdout}\n${result.stderr}` };
}

describe("pushBlockingEnv", () => {
  let repo: Repo | undefined;
  afterEach(() => repo?.cleanup());

  it("makes every push spelling to a local bare remote fail, and leaves fetch working", async () => {
    repo = await createRepo({ files: { "a.txt": "one\n" } });
    await repo.commit("second", { "a.txt": "two\n" });
    const before = await repo.gitRemote(["rev-parse", "refs/heads/main"]);
    const relative = path.relative(repo.dir, repo.remote);
    const spellings = [
      "git push origin HEAD:refs/heads/main",
      "git push",
      `git push ${repo.remote} HEAD:refs/heads/main`,
      `git push ${relative} HEAD:refs/heads/main`,
      `git push file://${repo.remote} HEAD:refs/heads/main`,
      "sh -c 'git push origin HEAD:refs/heads/main'",
      "env git push origin HEAD:refs/heads/main",
      "git -c alias.p=push p origin HEAD:refs/heads/other",
      "printf 'git push origin HEAD:refs/heads/main\\n' > p.sh && sh p.sh",
    ];
    // Each spelling is tried against the remote as it was: a push that landed is counted, then undone.
    const refs = () => repo!.gitRemote(["for-each-ref", "--format=%(objectname) %(refname)"]);
    const start = await refs();
    const results: Array<{ line: string; exitCode: number | undefined; output: string; landed: boolean }> = [];
    for (const line of spellings) {
      const result = await guardedShell(line, repo.dir);
      const landed = (await refs()) !== start;
      if (landed) {
        await repo.gitRemote(["update-ref", "refs/heads/main", before]);
        await repo.gitRemote(["update-ref", "-d", "refs/heads/other"]).catch(() => "");
      }
      results.push({ line, ...result, landed });
    }
    // Recorded before any assertion, so a regression shows in the bench as a number: spellings tried, spellings that landed.
    recordFigure({
      name: "push spellings run by real git in a guarded session's environment",
      tried: spellings.length,
      through: results.filter((r) => r.landed).length,
    });
    for (const result of results) {
      expect(result.landed, result.line).toBe(false);
      expect(result.exitCode, `${result.line}\n${result.output}`).not.toBe(0);
      expect(result.output).toContain("otto-blocks-pushes-from-sessions");
    }
    expect(await repo.gitRemote(["rev-parse", "refs/heads/main"])).toBe(before);
    expect(await repo.gitRemote(["branch", "--list", "other"])).toBe("");
    // Reading the remote still works: the session may fetch.
    expect((await guardedShell("git fetch -q origin && git ls-remote origin main", repo.dir)).exitCode).toBe(0);
  });

  it("does not stop an explicit pushurl: that spelling is the command layer's (docs/security.md)", async () => {
    repo = await createRepo();
    await repo.commit("second", { "b.txt": "b\n" });
    const result = await guardedShell(`git -c remote.origin.pushurl=${repo.remote} push -q origin HEAD:refs/heads/pushurl`, repo.dir);
    expect(result.exitCode).toBe(0);
  });

  it("drops the user's own GIT_CONFIG_n entries (an extraheader with a token): otto's alone, from 0, the user's blanked", () => {
    const out = pushBlockingEnv({
      env: {
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "http.extraheader",
        GIT_CONFIG_VALUE_0: "AUTHORIZATION: bearer ghp_userEnvHeader0123456789",
      },
    });
    expect(out.GIT_CONFIG_COUNT).toBe("3");
    expect(out.GIT_CONFIG_KEY_0).toMatch(/pushInsteadOf$/);
    expect(out.GIT_CONFIG_VALUE_0).toBe("");
    expect(JSON.stringify(out)).not.toContain("ghp_userEnvHeader");
  });

  it("blanks forge tokens by name and any variable holding a configured token", () => {
    const out = pushBlockingEnv({
      env: { GITHUB_TOKEN: "ghp_x", MY_CI_TOKEN: "abc-secret-123", OTHER: "fine" },
      secrets: ["abc-secret-123"],
      emptyConfigDir: "/tmp/empty",
    });
    for (const name of TOKEN_VARIABLES) expect(out[name]).toBe("");
    expect(out.MY_CI_TOKEN).toBe("");
    expect(out.OTHER).toBeUndefined();
    expect(out).toMatchObject({
      GIT_TERMINAL_PROMPT: "0",
      GIT_ASKPASS: "false",
      SSH_ASKPASS: "false",
      GIT_SSH_COMMAND: "false",
      SSH_AUTH_SOCK: "",
      GH_CONFIG_DIR: "/tmp/empty",
    });
  });

  it("blanks OpenCode's server credentials: a session's curl cannot authenticate to OpenCode's own server", () => {
    const out = pushBlockingEnv({ env: { OPENCODE_SERVER_PASSWORD: "generated-by-otto-1234", OPENCODE_SERVER_USERNAME: "opencode" } });
    expect(out.OPENCODE_SERVER_PASSWORD).toBe("");
    expect(out.OPENCODE_SERVER_USERNAME).toBe("");
    // Set even when the environment has none, and protected: a command that sets them is refused.
    expect(pushBlockingEnv({ env: {} })).toMatchObject({ OPENCODE_SERVER_PASSWORD: "", OPENCODE_SERVER_USERNAME: "" });
    expect(protectedVariables()).toEqual(expect.arrayContaining(["OPENCODE_SERVER_PASSWORD", "OPENCODE_SERVER_USERNAME"]));
  });
});
