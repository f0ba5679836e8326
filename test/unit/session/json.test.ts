import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SessionRunner, type ChildOptions, type PromptRenderer } from "../../../src/session/index.ts";
import { FakeOpencode, MODEL, log, type PromptCall } from "./fake-opencode.ts";

const Verdict = z.object({ verdict: z.enum(["approve", "revise"]), count: z.number() });

const renders: Array<{ name: string; vars: object }> = [];
const render: PromptRenderer = (name: string, vars: object) => {
  renders.push({ name, vars });
  return `RETRY: ${JSON.stringify(vars)}`;
};

/** A model that answers each prompt with the next scripted reply. */
function scripted(replies: string[]) {
  const fake = new FakeOpencode(() => ({ text: replies.shift() ?? "(nothing)" }));
  const runner = new SessionRunner({ client: fake.client, events: fake.events, log, render });
  return { fake, runner };
}

const options: ChildOptions = { directory: "/repo", agent: "otto-reviewer", model: MODEL, title: "json", timeoutMs: 5_000 };
const envelope = (json: string) => `Thinking first.\nBEGIN_JSON\n${json}\nEND_JSON`;
const sessions = (prompts: PromptCall[]) => new Set(prompts.map((p) => p.sessionID));

describe("promptJson", () => {
  it("accepts a valid envelope the first time", async () => {
    const { fake, runner } = scripted([envelope('{"verdict":"approve","count":0}')]);
    const reply = await runner.runChildJson(options, "review", Verdict);
    expect(reply).toMatchObject({ value: { verdict: "approve", count: 0 }, attempts: 1, rescued: false });
    expect(fake.prompts).toHaveLength(1);
  });

  it("uses the last envelope when the reply quotes the format first", async () => {
    const text = `Format: BEGIN_JSON {"verdict":"x"} END_JSON\n${envelope('```json\n{"verdict":"revise","count":2}\n```')}`;
    const { runner } = scripted([text]);
    expect((await runner.runChildJson(options, "review", Verdict)).value).toEqual({ verdict: "revise", count: 2 });
  });

  it("retries in the SAME session after an invalid envelope", async () => {
    renders.length = 0;
    const { fake, runner } = scripted([envelope('{"verdict":"maybe","count":1}'), envelope('{"verdict":"revise","count":1}')]);
    const reply = await runner.runChildJson(options, "review", Verdict);
    expect(reply).toMatchObject({ value: { verdict: "revise", count: 1 }, attempts: 2, rescued: false });
    expect(sessions(fake.prompts)).toEqual(new Set([reply.sessionID]));
    expect(renders[0]?.name).toBe("json-retry");
    const vars = renders[0]?.vars as { validation_error: string; expected_shape: string };
    expect(vars.validation_error).toContain("verdict");
    expect(vars.expected_shape).toContain('"approve"');
    expect(fake.prompts[1]?.body.parts[0]?.text).toContain("RETRY");
  });

  it("rescues fenced JSON without markers after the retries are spent", async () => {
    const { fake, runner } = scripted(["no json", "still none", 'Here it is:\n```json\n{"verdict":"approve","count":3}\n```']);
    const reply = await runner.runChildJson(options, "review", Verdict);
    expect(reply).toMatchObject({ value: { verdict: "approve", count: 3 }, attempts: 3, rescued: true });
    expect(fake.prompts).toHaveLength(3);
    expect(sessions(fake.prompts).size).toBe(1);
  });

  it("throws invalid_envelope with the zod issues and the session id when nothing can be rescued", async () => {
    const bad = envelope('{"verdict":"maybe"}');
    const { fake, runner } = scripted([bad, bad, bad]);
    const error = await runner.runChildJson(options, "review", Verdict).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid_envelope" });
    const message = (error as Error).message;
    expect(message).toContain(fake.prompts[0]?.sessionID);
    expect(message).toMatch(/verdict: Invalid option/);
    expect(message).toMatch(/count: Invalid input/);
    expect(fake.deleted).toHaveLength(1);
  });

  it("honours retries: 0", async () => {
    const { fake, runner } = scripted(["nope", envelope('{"verdict":"approve","count":0}')]);
    await expect(runner.runChildJson(options, "review", Verdict, { retries: 0 })).rejects.toMatchObject({ code: "invalid_envelope" });
    expect(fake.prompts).toHaveLength(1);
  });

  it("renders the retry with the json-retry prompt by default", async () => {
    const fake = new FakeOpencode(() => ({ text: "no envelope" }));
    const env = { XDG_CONFIG_HOME: "/nonexistent", HOME: "/nonexistent" };
    const runner = new SessionRunner({ client: fake.client, events: fake.events, log, env });
    await expect(runner.runChildJson(options, "review", Verdict, { retries: 1 })).rejects.toMatchObject({ code: "invalid_envelope" });
    const retry = fake.prompts[1]?.body.parts[0]?.text ?? "";
    expect(retry).toContain("no BEGIN_JSON");
    expect(retry).toContain('"approve"');
    expect(retry).not.toContain("$schema");
  });
});
