import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createGithubBackend } from "../../../src/pr/github/backend.ts";
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

describe("GitHub errors name the real cause", () => {
  let gh: FakeGithub | undefined;
  afterEach(async () => gh?.close());

  it("no answer at all: the host and 'connection refused', no HTTP status, and that no token was found", async () => {
    const apiUrl = `http://127.0.0.1:${await closedPort()}`;
    const urls: string[] = [];
    const deps = testDeps(testConfig({ pr: { providers: { github: { api_url: apiUrl } } } }), {
      fetch: (input, init) => {
        urls.push(String(input instanceof Request ? input.url : input));
        return globalThis.fetch(input, init);
      },
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
});
