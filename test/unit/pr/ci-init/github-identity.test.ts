import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { planCiInit } from "../../../../src/pr/ci/init/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../../support/fake-github/index.ts";

/*
 * The GitHub workflow's configure step, run as a runner runs a `run:` step (bash -e -o pipefail)
 * with its env as the workflow resolves it for each kind of token, against the fake GitHub: git's
 * author and committer are whoever pushes (the App's bot, the machine account, github-actions[bot]),
 * each with its noreply address, and the credential helper answers with the job's GITHUB_TOKEN.
 */

type Step = { name?: string; run?: string; env?: Record<string, string> };
const configure = (
  parse(
    planCiInit({
      forge: "github",
      pins: { otto: "0.1.0", opencode: "1.18.33" },
      models: { primary: "anthropic/claude-sonnet-4-5" },
      opencodeEnv: new Map(),
      workflows: ["CI"],
      checkSuites: false,
      jobs: [],
    }).files[0]!.text,
  ) as { jobs: { otto: { steps: Step[] } } }
).jobs.otto.steps.find((s) => s.name === "Configure OpenCode, otto and otto's git")!;

describe("the GitHub workflow's git identity", () => {
  let gh: FakeGithub | undefined;
  const homes: string[] = [];
  afterEach(async () => {
    await gh?.close();
    for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
  });

  /** The step with `env` for the expressions the workflow resolves (APP_SLUG, MACHINE_TOKEN, OTTO_BOT_LOGIN). */
  async function run(env: { APP_SLUG?: string; MACHINE_TOKEN?: string; OTTO_BOT_LOGIN?: string }) {
    gh = await startFakeGithub();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-gh-identity-"));
    homes.push(home);
    const literal = Object.fromEntries(Object.entries(configure.env ?? {}).filter(([, v]) => !v.startsWith("${{")));
    const base = { PATH: process.env.PATH, HOME: home, GITHUB_API_URL: gh.apiUrl, GITHUB_SERVER_URL: "https://github.com" };
    const status = await new Promise<number>((resolve) =>
      execFile(
        "bash",
        ["--noprofile", "--norc", "-e", "-o", "pipefail", "-c", configure.run ?? ""],
        { encoding: "utf8", timeout: 60_000, env: { ...base, ...literal, APP_SLUG: "", MACHINE_TOKEN: "", OTTO_BOT_LOGIN: "", ...env } },
        (error) => resolve(error ? Number(error.code ?? 1) : 0),
      ),
    );
    const git = (args: string[], input?: string) =>
      execFileSync("git", args, {
        encoding: "utf8",
        env: { ...base, GITHUB_TOKEN: "the-job-token", GIT_TERMINAL_PROMPT: "0" },
        input,
      }).trim();
    return {
      status,
      who: `${git(["config", "--global", "--get", "user.name"])} <${git(["config", "--global", "--get", "user.email"])}>`,
      password: /^password=(.*)$/m.exec(git(["credential", "fill"], "url=https://github.com/octo/app\n\n"))?.[1],
    };
  }

  it("the job's own token: github-actions[bot] with its noreply address", async () => {
    const result = await run({});
    expect(result.status).toBe(0);
    expect(result.who).toBe("github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>");
    expect(result.password).toBe("the-job-token");
  });

  it("a machine account's token: the account the token is (GET /user), with its id", async () => {
    const result = await run({ MACHINE_TOKEN: FAKE_GITHUB_TOKEN, OTTO_BOT_LOGIN: "otto-bot" });
    expect(result.status).toBe(0);
    const id = gh!.state.user("otto-bot").id;
    expect(result.who).toBe(`otto-bot <${id}+otto-bot@users.noreply.github.com>`);
    expect(gh!.calls.filter((c) => c.path.endsWith("/user")).map((c) => c.status)).toEqual([200]);
  });

  it("an App's token: the App's bot, its id read from the public profile", async () => {
    const result = await run({ APP_SLUG: "otto-app" });
    expect(result.status).toBe(0);
    const id = gh!.state.user("otto-app[bot]").id;
    expect(result.who).toBe(`otto-app[bot] <${id}+otto-app[bot]@users.noreply.github.com>`);
    expect(result.password).toBe("the-job-token");
  });
});
