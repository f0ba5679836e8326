import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { AZURE_COMMENTS_FILE, AZURE_JOB_FILE, planCiInit } from "../../../../src/pr/ci/init/index.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../../support/fake-ado/index.ts";

/*
 * The Azure files' configure step, run as Azure runs a script step (bash -e -o pipefail) with its
 * own env against the fake Azure DevOps: git's author and committer become the identity the push
 * token authenticates as (connectionData), the build identity or a PAT's user, and the credential
 * helper answers with that same token.
 */

const files = planCiInit({
  forge: "azure",
  pins: { otto: "0.1.0", opencode: "1.18.33" },
  models: { primary: "anthropic/claude-sonnet-4-5" },
  opencodeEnv: new Map(),
  workflows: [],
  checkSuites: false,
  jobs: ["Build"],
}).files;

type Step = { script?: string; displayName?: string; env?: Record<string, string> };
const configureStep = (file: string): Step =>
  (parse(files.find((f) => f.path === file)!.text) as { jobs: Array<{ steps: Step[] }> }).jobs[0]!.steps.find(
    (s) => s.displayName === "Configure OpenCode, otto and otto's git",
  )!;

describe("the Azure files' git identity", () => {
  const open: FakeAdo[] = [];
  const homes: string[] = [];
  afterEach(async () => {
    for (const f of open.splice(0)) await f.close();
    for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
  });

  /** Runs the configure step in a fresh HOME; the step's env as Azure maps it (the access token mapped in). */
  async function configure(step: Step, ado: FakeAdo, env: Record<string, string>) {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-ado-identity-"));
    homes.push(home);
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).filter(([, v]) => !v.startsWith("$(")));
    const result = await new Promise<{ status: number; stdout: string }>((resolve) => {
      execFile(
        "bash",
        ["--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step.script ?? ""],
        {
          encoding: "utf8",
          timeout: 60_000,
          env: { PATH: process.env.PATH, HOME: home, ...stepEnv, SYSTEM_COLLECTIONURI: `${ado.baseUrl}/contoso/`, ...env },
        },
        (error, stdout) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout }),
      );
    });
    const git = (args: string[]) =>
      new Promise<string>((resolve) =>
        execFile("git", args, { encoding: "utf8", env: { PATH: process.env.PATH, HOME: home, ...env } }, (_e, out) => resolve(out.trim())),
      );
    return {
      ...result,
      name: await git(["config", "--global", "--get", "user.name"]),
      email: await git(["config", "--global", "--get", "user.email"]),
      // What the credential helper answers git for the collection's URL.
      password: /^password=(.*)$/m.exec(
        execFileSync("git", ["credential", "fill"], {
          encoding: "utf8",
          input: `url=${ado.baseUrl}/contoso/payments/_git/app\n\n`,
          env: { PATH: process.env.PATH, HOME: home, GIT_TERMINAL_PROMPT: "0", ...env },
        }),
      )?.[1],
    };
  }

  it("both files map the token into the configure step, which sets git's identity to the token's own", () => {
    for (const file of [AZURE_JOB_FILE, AZURE_COMMENTS_FILE]) {
      const step = configureStep(file);
      expect(step.env?.SYSTEM_ACCESSTOKEN, file).toBe("$(System.AccessToken)");
      expect(step.script, file).toContain("_apis/connectionData");
      expect(step.script, file).not.toContain("otto@localhost");
    }
  });

  it("System.AccessToken: the build identity Azure names, its id at the organization's host when its account is no address", async () => {
    const ado = await startFakeAdo();
    open.push(ado);
    // A build identity: "<project> Build Service (<organization>)", whose account is not a mail address.
    Object.assign(ado.state.me, { displayName: "payments Build Service (contoso)", uniqueName: `Build\\${ado.state.project.id}` });
    const run = await configure(configureStep(AZURE_JOB_FILE), ado, { SYSTEM_ACCESSTOKEN: FAKE_ADO_PAT });
    expect(run.status, run.stdout).toBe(0);
    expect(run.name).toBe("payments Build Service (contoso)");
    expect(run.email).toBe(`${ado.state.me.id}@${new URL(ado.baseUrl).host}`);
    expect(run.password).toBe(FAKE_ADO_PAT);
    expect(ado.calls.filter((c) => c.path.endsWith("/_apis/connectionData")).map((c) => c.status)).toEqual([200]);
  });

  it("a PAT mapped as OTTO_ADO_PAT wins, as in otto's config: its user's name and address, and the helper answers with it", async () => {
    const ado = await startFakeAdo();
    open.push(ado);
    Object.assign(ado.state.me, { displayName: "Otto Machine", uniqueName: "otto-machine@contoso.com" });
    const run = await configure(configureStep(AZURE_COMMENTS_FILE), ado, {
      SYSTEM_ACCESSTOKEN: "a-token-azure-would-refuse",
      OTTO_ADO_PAT: FAKE_ADO_PAT,
    });
    expect(run.status, run.stdout).toBe(0);
    expect(run.name).toBe("Otto Machine");
    expect(run.email).toBe("otto-machine@contoso.com");
    expect(run.password).toBe(FAKE_ADO_PAT);
  });

  it("a token Azure refuses fails the step, saying so, with no identity set", async () => {
    const ado = await startFakeAdo();
    open.push(ado);
    const run = await configure(configureStep(AZURE_JOB_FILE), ado, { SYSTEM_ACCESSTOKEN: "wrong" });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain("otto: Azure DevOps did not say who the job's token is (connectionData)");
    expect(run.name).toBe("");
  });
});
