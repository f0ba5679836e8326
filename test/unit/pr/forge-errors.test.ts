import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../src/pr/ado/backend.ts";
import { createGithubBackend } from "../../../src/pr/github/backend.ts";
import type { PrInfo } from "../../../src/pr/index.ts";
import { FAKE_ADO_PAT } from "../../support/fake-ado/index.ts";
import { startFakeGithub, type FakeGithub } from "../../support/fake-github/index.ts";
import { testConfig, testDeps } from "./support.ts";

/** A port on 127.0.0.1 that nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const PR = { provider: "github", repo: "octo/app", number: 7 } as const;
const ADO_PR = { provider: "ado", repo: "contoso/payments/app", number: 7 } as const;

/** fetch that records each URL asked for, so a test can count the attempts. */
function countingFetch(urls: string[]): typeof globalThis.fetch {
  return (input, init) => {
    urls.push(String(input instanceof Request ? input.url : input));
    return globalThis.fetch(input, init);
  };
}

describe("GitHub errors name the real cause", () => {
  let gh: FakeGithub | undefined;
  afterEach(async () => gh?.close());

  it("no answer at all: the host and 'connection refused', no HTTP status, and that no token was found", async () => {
    const apiUrl = `http://127.0.0.1:${await closedPort()}`;
    const urls: string[] = [];
    const deps = testDeps(testConfig({ pr: { providers: { github: { api_url: apiUrl } } } }), {
      fetch: countingFetch(urls),
    });
    const error = await createGithubBackend(deps)
      .getPr(PR)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "pr_unreachable" });
    const { message, fix } = error as { message: string; fix: string };
    expect(message).toMatch(
      new RegExp(
        `GitHub could not be reached while reading .*: 127\\.0\\.0\\.1:\\d+: the connection was refused \\(nothing listens on that port, or a firewall refuses it\\); no HTTP status came back`,
      ),
    );
    expect(message).toContain("Also, otto found no GitHub token");
    expect(fix).toContain(`Check that ${apiUrl} is reachable from this machine`);
    expect(fix).not.toContain("next poll");
    // Refused: asked once, not retried through plugin-retry's backoff.
    expect(urls).toHaveLength(1);
    expect(deps.sleeps).toEqual([]);
    // The token lookup ran (`gh auth token`) and found nothing.
    expect(deps.execCalls.map((c) => c.file)).toEqual(["gh"]);
    // A post that never connected was not applied: no look for its marker, no second write.
    const info = { ...PR, meta: {} } as unknown as PrInfo;
    await expect(createGithubBackend(deps).postComment(info, "hello")).rejects.toMatchObject({ code: "pr_unreachable" });
    expect(urls).toHaveLength(2);
  });

  it("no answer in time: retried (timeouts keep their retries), and the message says how many attempts", async () => {
    // Accepts connections and never answers.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const apiUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      const urls: string[] = [];
      const config = testConfig({ pr: { request_timeout: "200ms", providers: { github: { api_url: apiUrl, token: "ghp_test" } } } });
      const error = await createGithubBackend(testDeps(config, { fetch: countingFetch(urls) }))
        .getPr(PR)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "pr_unreachable" });
      expect((error as Error).message).toMatch(/: no answer within 200 ms; no HTTP status came back \(4 attempts\)\.$/);
      expect(urls).toHaveLength(4);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("a 404 without a token says no token was found, not that the token cannot see it", async () => {
    gh = await startFakeGithub();
    const deps = testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl } } } }));
    const error = await createGithubBackend(deps)
      .getPr(PR)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "pr_no_token" });
    expect((error as Error).message).toMatch(
      /^GitHub answered 40\d for .*, and otto found no GitHub token .*: a private repository is invisible without one\.$/,
    );
    expect((error as Error).message).not.toContain("the token cannot see it");
  });

  it("Azure DevOps, no answer at all: host and port, 'connection refused', one attempt, and that no credentials were found", async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const urls: string[] = [];
    const deps = testDeps(testConfig({ pr: { providers: { ado: { base_url: baseUrl } } } }), { fetch: countingFetch(urls) });
    const error = await createAdoBackend(deps)
      .getPr(ADO_PR)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "pr_unreachable" });
    const { message, fix } = error as { message: string; fix: string };
    expect(message).toMatch(
      /^Azure DevOps could not be reached for GET \/contoso\/payments\/_apis\/git\/pullrequests\/7: 127\.0\.0\.1:\d+: the connection was refused \(nothing listens on that port, or a firewall refuses it\); no HTTP status came back\. Also, otto found no Azure DevOps credentials \(pr\.providers\.ado\.pat, OTTO_ADO_PAT or `az account get-access-token`\)\.$/,
    );
    expect(fix).toBe(
      `Check that ${baseUrl}/contoso is reachable from this machine (network, proxy, VPN; Azure DevOps Server: pr.providers.ado.base_url), then run the command again.`,
    );
    expect(urls).toHaveLength(1);
    expect(deps.sleeps).toEqual([]);
  });

  it("Azure DevOps with a PAT: unreachable says only that, and a write that never connected is not 'uncertain'", async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const deps = testDeps(testConfig({ pr: { providers: { ado: { base_url: baseUrl, pat: FAKE_ADO_PAT } } } }));
    const backend = createAdoBackend(deps);
    const error = await backend.getPr(ADO_PR).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "pr_unreachable" });
    expect((error as Error).message).not.toContain("credentials");
    // Nothing was sent, so a POST is not an uncertain write that otto would look for first.
    const info = { ...ADO_PR, meta: { repositoryId: "r1", projectId: "p1" } } as unknown as PrInfo;
    await expect(backend.postComment(info, "hello")).rejects.toMatchObject({ code: "pr_unreachable" });
  });
});
