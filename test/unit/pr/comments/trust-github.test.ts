import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGithubBackend } from "../../../../src/pr/github/backend.ts";
import { resolveTrust } from "../../../../src/pr/comments/resolve-trust.ts";
import type { PrBackend, PrComment, PrInfo } from "../../../../src/pr/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../../support/fake-github/index.ts";
import { testConfig, testDeps } from "../support.ts";

/*
 * Trust is write access: MEMBER and COLLABORATOR are asked about through GitHub's collaborator
 * permission API (against the fake GitHub, whose answers are checked against GitHub's OpenAPI
 * description in fake-github-openapi.test.ts), once per author for a backend's life (one watcher
 * cycle or one command), and a failed lookup trusts nobody.
 */

describe("who otto acts for on GitHub: the permission API decides", () => {
  let gh: FakeGithub;
  let backend: PrBackend;
  let info: PrInfo;
  const logs: string[] = [];
  beforeEach(async () => {
    gh = await startFakeGithub();
    backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    gh.state.addPr({ number: 3 });
    info = await backend.getPr({ provider: "github", repo: "octo/app", number: 3 });
    logs.length = 0;
  });
  afterEach(async () => gh.close());

  const comment = (id: string, author: string, association: string): PrComment => ({
    id,
    kind: "conversation",
    author,
    body: "b",
    createdAt: "2026-02-06T10:00:00Z",
    resolved: false,
    association,
  });
  const decide = (comments: PrComment[]) =>
    resolveTrust({
      backend,
      pr: info,
      comments,
      policy: { mode: "add", logins: [] },
      secrets: [],
      log: (_level, message) => void logs.push(message),
    });
  const permissionCalls = () => gh.calls.filter((c) => c.path.endsWith("/permission")).map((c) => c.path.split("/").at(-2));

  it("an organization MEMBER with read is not trusted; a COLLABORATOR with write, a MEMBER with admin are; OWNER is not asked", async () => {
    gh.state.associations.set("reader", "MEMBER");
    gh.state.permissions.set("reader", "read");
    gh.state.associations.set("triager", "COLLABORATOR");
    gh.state.permissions.set("triager", "read");
    gh.state.permissions.set("writer", "write");
    gh.state.associations.set("admin", "MEMBER");
    gh.state.permissions.set("admin", "admin");
    const trust = await decide([
      comment("issue-1", "reader", "MEMBER"),
      comment("issue-2", "triager", "COLLABORATOR"),
      comment("issue-3", "writer", "COLLABORATOR"),
      comment("issue-4", "admin", "MEMBER"),
      comment("issue-5", "octo", "OWNER"),
    ]);
    expect(Object.fromEntries(trust)).toEqual({
      "issue-1": { trusted: false, reason: "no_access" },
      "issue-2": { trusted: false, reason: "no_access" },
      "issue-3": { trusted: true, reason: "access" },
      "issue-4": { trusted: true, reason: "access" },
      "issue-5": { trusted: true, reason: "association" },
    });
    expect(permissionCalls().sort()).toEqual(["admin", "reader", "triager", "writer"]);
  });

  it("asks once per author for the backend's life (one cycle): a second pass and a second comment are cache hits", async () => {
    gh.state.associations.set("writer", "MEMBER");
    await decide([comment("issue-1", "writer", "MEMBER"), comment("issue-2", "writer", "MEMBER")]);
    await decide([comment("issue-3", "writer", "MEMBER")]);
    expect(permissionCalls()).toEqual(["writer"]);
    // The next cycle has a new backend, and asks again (a role can change).
    const next = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    await resolveTrust({
      backend: next,
      pr: info,
      comments: [comment("issue-1", "writer", "MEMBER")],
      policy: { mode: "add", logins: [] },
      secrets: [],
      log: () => undefined,
    });
    expect(permissionCalls()).toEqual(["writer", "writer"]);
  });

  it("an API error trusts nobody it asked about (fails closed), is logged, and is not remembered", async () => {
    gh.state.associations.set("writer", "COLLABORATOR");
    gh.faults({ rate: 1, kinds: ["500"], maxConsecutive: 100, match: (c) => c.path.endsWith("/permission") });
    const trust = await decide([comment("issue-1", "writer", "COLLABORATOR"), comment("issue-2", "octo", "OWNER")]);
    expect(Object.fromEntries(trust)).toEqual({
      "issue-1": { trusted: false, reason: "lookup_failed" },
      "issue-2": { trusted: true, reason: "association" },
    });
    expect(logs.join("\n")).toContain("comments by writer are left for a person");
    gh.faults(undefined);
    expect((await decide([comment("issue-1", "writer", "COLLABORATOR")])).get("issue-1")).toEqual({ trusted: true, reason: "access" });
  });
});
