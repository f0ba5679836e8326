import { afterEach, describe, expect, it } from "vitest";
import { adoAuthorization } from "../../../../src/pr/ado/auth.ts";
import { backendDeps } from "../../../../src/pr/context/context.ts";
import { createGithubBackend } from "../../../../src/pr/github/backend.ts";
import { sanitizeForPost } from "../../../../src/pr/sanitize.ts";
import type { LoadedConfig } from "../../../../src/config/index.ts";
import type { PrRuntime } from "../../../../src/pr/context/context.ts";
import { startFakeGithub, type FakeGithub } from "../../../support/fake-github/index.ts";
import { testConfig, testDeps } from "../support.ts";

/*
 * A token otto gets from `gh auth token` or `az account get-access-token` is as secret as a
 * configured one: it joins the secrets every posted text is sanitized with. These tokens match no
 * known token pattern, so only the list can catch them.
 */

const GH_CLI_TOKEN = "cli-token-from-gh-0123456789";
const AZ_CLI_TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra-token";

describe("tokens from CLIs are redacted like configured ones", () => {
  const open: FakeGithub[] = [];
  afterEach(async () => {
    for (const server of open.splice(0)) await server.close();
  });

  it("gh auth token: GitHub calls work with it and it joins the secrets", async () => {
    const gh = await startFakeGithub({ token: GH_CLI_TOKEN });
    open.push(gh);
    gh.state.addPr({ number: 3 });
    const secrets = ["configured"];
    const deps = testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl } } } }), {
      secrets,
      cli: { gh: { exitCode: 0, stdout: `${GH_CLI_TOKEN}\n` } },
    });
    const pr = await createGithubBackend(deps).getPr({ provider: "github", repo: "octo/app", number: 3 });
    expect(pr.number).toBe(3);
    expect(secrets).toEqual(["configured", GH_CLI_TOKEN]);
    expect(sanitizeForPost(`the log said ${GH_CLI_TOKEN}`, secrets)).toBe("the log said [REDACTED]");
  });

  it("az account get-access-token: the Bearer token joins the secrets once", async () => {
    const secrets: string[] = [];
    const deps = testDeps(testConfig(), { secrets, cli: { az: { exitCode: 0, stdout: AZ_CLI_TOKEN } } });
    expect(await adoAuthorization(deps)).toBe(`Bearer ${AZ_CLI_TOKEN}`);
    await adoAuthorization(deps);
    expect(secrets).toEqual([AZ_CLI_TOKEN]);
  });

  it("the backends share the loaded config's secrets list, the one the flows sanitize with", () => {
    const loaded = { config: testConfig(), secrets: ["x"] } as unknown as LoadedConfig;
    const runtime = { env: {}, log: { log: () => undefined } } as unknown as PrRuntime;
    expect(backendDeps(runtime, loaded).secrets).toBe(loaded.secrets);
  });
});
