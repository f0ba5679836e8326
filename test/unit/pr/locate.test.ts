import { describe, expect, it } from "vitest";
import { createRegistry, documentKey, locatePr } from "../../../src/pr/index.ts";
import { testConfig, testDeps } from "./support.ts";

const registry = (value: Record<string, unknown> = {}) => createRegistry(testDeps(testConfig(value)));

describe("locatePr", () => {
  it("detects the backend from the URL's host", () => {
    const r = registry({
      pr: { providers: { github: { hosts: ["git.corp.example"] }, ado: { base_url: "https://tfs.corp.example/tfs" } } },
    });
    const cases: Array<[string, string, string, number]> = [
      ["https://github.com/Octo/App/pull/12", "github", "Octo/App", 12],
      ["https://github.com/octo/app/pull/12/files?diff=split", "github", "octo/app", 12],
      ["https://git.corp.example/team/svc/pull/3", "github", "team/svc", 3],
      ["https://dev.azure.com/contoso/payments/_git/app/pullrequest/41", "ado", "contoso/payments/app", 41],
      [
        "https://contoso.visualstudio.com/DefaultCollection/My%20Project/_git/app/pullrequest/7?_a=files",
        "ado",
        "contoso/My Project/app",
        7,
      ],
      ["https://tfs.corp.example/tfs/Main/payments/_git/app/pullrequest/9", "ado", "Main/payments/app", 9],
    ];
    for (const [url, provider, repo, number] of cases) {
      const { backend, locator } = locatePr(r, { text: url, context: {} });
      expect([backend.name, locator.repo, locator.number], url).toEqual([provider, repo, number]);
    }
  });

  it("refuses URLs it does not know, with a fix", () => {
    expect(() => locatePr(registry(), { text: "https://gitlab.com/a/b/-/merge_requests/1", context: {} })).toThrowError(
      expect.objectContaining({ code: "pr_bad_url", fix: expect.stringContaining("pr.providers.github.hosts") as unknown }),
    );
    // --provider forces a backend; it must still understand the URL.
    expect(() => locatePr(registry(), { text: "https://github.com/o/r/pull/1", provider: "ado", context: {} })).toThrowError(
      expect.objectContaining({ code: "pr_bad_url" }),
    );
    expect(() => locatePr(registry(), { text: "1", provider: "gitlab", context: {} })).toThrowError(
      expect.objectContaining({ code: "pr_provider" }),
    );
  });

  it("resolves bare ids with --provider, pr.default_provider, or the origin remote", () => {
    const github = { remoteUrl: "git@github.com:octo/app.git" };
    expect(locatePr(registry(), { text: "42", context: github }).locator).toEqual({ provider: "github", repo: "octo/app", number: 42 });
    expect(locatePr(registry(), { text: "octo/lib#5", provider: "github", context: {} }).locator).toEqual({
      provider: "github",
      repo: "octo/lib",
      number: 5,
    });
    const ado = registry({ pr: { default_provider: "ado", providers: { ado: { organization: "contoso", project: "payments" } } } });
    expect(locatePr(ado, { text: "!77", defaultProvider: "ado", context: github }).locator).toEqual({
      provider: "ado",
      repo: "contoso/payments",
      number: 77,
    });
    expect(
      locatePr(registry(), {
        text: "8",
        provider: "ado",
        context: { remoteUrl: "https://contoso@dev.azure.com/contoso/payments/_git/app" },
      }).locator,
    ).toEqual({
      provider: "ado",
      repo: "contoso/payments/app",
      number: 8,
    });
    expect(() => locatePr(registry(), { text: "42", context: {} })).toThrowError(
      expect.objectContaining({ code: "pr_provider", fix: expect.stringContaining("--provider") as unknown }),
    );
    expect(() => locatePr(registry(), { text: "42", provider: "github", context: {} })).toThrowError(
      expect.objectContaining({ code: "pr_no_repo" }),
    );
    expect(() => locatePr(registry(), { text: "42", provider: "ado", context: {} })).toThrowError(
      expect.objectContaining({ code: "pr_no_repo", fix: expect.stringContaining("pr.providers.ado.organization") as unknown }),
    );
  });

  it("names documents so numbers from different repositories never collide", () => {
    expect(documentKey({ provider: "github", repo: "Octo/App", number: 1 })).toBe("github-octo-app-1");
    expect(documentKey({ provider: "github", repo: "octo/lib", number: 1 })).toBe("github-octo-lib-1");
    expect(documentKey({ provider: "ado", repo: "contoso/My Project/app", number: 1 })).toBe("ado-contoso-1");
  });
});
