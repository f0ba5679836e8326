import { describe, expect, it } from "vitest";
import { formatModel, parseModel, resolveRoleModel, sameModelNote } from "../../../src/session/index.ts";
import { FakeOpencode, MODEL, log } from "./fake-opencode.ts";

describe("parseModel", () => {
  it("splits at the first slash", () => {
    expect(parseModel("anthropic/claude-sonnet-4-5")).toEqual({ providerID: "anthropic", modelID: "claude-sonnet-4-5" });
    expect(parseModel(" openrouter/anthropic/claude-sonnet-4 ")).toEqual({
      providerID: "openrouter",
      modelID: "anthropic/claude-sonnet-4",
    });
    expect(formatModel(parseModel("openrouter/a/b"))).toBe("openrouter/a/b");
  });

  it.each(["claude", "/claude", "anthropic/", "anthropic/claude sonnet", ""])("rejects %j", (text) => {
    expect(() => parseModel(text)).toThrow(expect.objectContaining({ code: "model_format" }));
  });
});

describe("resolveRoleModel", () => {
  async function sessionWithHistory() {
    const fake = new FakeOpencode(() => ({ text: "hi" }));
    const { data } = await fake.client.session.create({ body: {} });
    await fake.client.session.prompt({
      path: { id: data?.id ?? "" },
      body: { agent: "otto", model: MODEL, parts: [{ type: "text", text: "hello" }] },
    });
    return { fake, sessionID: data?.id ?? "" };
  }

  it("uses the configured model", async () => {
    const { fake, sessionID } = await sessionWithHistory();
    const deps = { client: fake.client, sessionID, once: new Set<string>(), log };
    expect(await resolveRoleModel("secondary", "acme/other", deps)).toEqual({ model: { providerID: "acme", modelID: "other" } });
  });

  it("falls back to the session's model and says so once per process", async () => {
    const { fake, sessionID } = await sessionWithHistory();
    const deps = { client: fake.client, sessionID, once: new Set<string>(), log };
    const first = await resolveRoleModel("secondary", undefined, deps);
    expect(first).toEqual({ model: MODEL, note: "models.secondary is not set; using acme/big-1 (the session's model)" });
    expect(await resolveRoleModel("secondary", undefined, deps)).toEqual({ model: MODEL });
    expect((await resolveRoleModel("primary", undefined, deps)).note).toContain("models.primary");
  });

  it("fails with a fix when the session has no model yet", async () => {
    const fake = new FakeOpencode();
    const deps = { client: fake.client, sessionID: "ses_none", once: new Set<string>(), log };
    await expect(resolveRoleModel("secondary", undefined, deps)).rejects.toMatchObject({ code: "model_unset" });
  });
});

describe("sameModelNote", () => {
  it("says when the reviewer is the model that wrote the work, and nothing otherwise", () => {
    expect(sameModelNote(parseModel("mock/m1"), parseModel("mock/m1"))).toBe(
      "the review is by the same model that wrote the work (mock/m1), so it is no second opinion; set models.secondary to another model for one",
    );
    expect(sameModelNote(parseModel("mock/m1"), parseModel("mock/m2"))).toBeUndefined();
  });
});
