import { describe, expect, it } from "vitest";
import { OttoError } from "../../../src/core/index.ts";
import { SessionRunner, type ChildOptions } from "../../../src/session/index.ts";
import { FakeOpencode, MODEL, OTHER, log, trackingClock, type Handler } from "./fake-opencode.ts";

function setup(handler?: Handler, concurrency?: number) {
  const fake = new FakeOpencode(handler);
  const clock = trackingClock();
  const runner = new SessionRunner({ client: fake.client, events: fake.events, log, clock }, { concurrency, graceMs: 10 });
  return { fake, clock, runner };
}

const options = (extra: Partial<ChildOptions> = {}): ChildOptions => ({
  parentID: "ses_parent",
  directory: "/repo",
  agent: "otto-reviewer",
  model: MODEL,
  title: "test",
  timeoutMs: 5_000,
  ...extra,
});

async function rejection(promise: Promise<unknown>): Promise<OttoError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OttoError);
  return error as OttoError;
}

describe("ChildSession.prompt", () => {
  it("creates a child of the parent in the directory and sends agent, model and text", async () => {
    const { fake, runner } = setup(() => ({ text: "hello" }));
    const child = await runner.openChild(options());
    const reply = await child.prompt("hi", { system: "be brief" });
    expect(reply.text).toBe("hello");
    expect(fake.sessions.get(child.id)).toMatchObject({ directory: "/repo", parentID: "ses_parent", title: "test" });
    expect(fake.prompts[0]).toEqual({
      sessionID: child.id,
      directory: "/repo",
      body: { agent: "otto-reviewer", model: MODEL, system: "be brief", parts: [{ type: "text", text: "hi" }] },
    });
  });

  it("rejects a reply from another model", async () => {
    const { runner } = setup(() => ({ text: "x", model: OTHER }));
    const error = await rejection(runner.runChild(options(), "hi"));
    expect(error.code).toBe("model_mismatch");
    expect(error.message).toContain("acme/big-1");
    expect(error.message).toContain("acme/small-2");
  });

  it("rejects a reply from another agent", async () => {
    const { runner } = setup(() => ({ text: "x", agent: "build" }));
    expect((await rejection(runner.runChild(options(), "hi"))).code).toBe("agent_mismatch");
  });

  it("turns a provider error on the reply into model_error, redacted", async () => {
    const token = `ghp_${"a".repeat(36)}`;
    const { runner } = setup(() => ({
      error: { name: "APIError", data: { message: `bad key ${token}`, statusCode: 401, isRetryable: false } },
    }));
    const error = await rejection(runner.runChild(options(), "hi"));
    expect(error.code).toBe("model_error");
    expect(error.message).toContain("HTTP 401");
    expect(error.message).not.toContain(token);
  });

  it("turns an HTTP error from OpenCode into model_error", async () => {
    const { runner } = setup(() => ({ httpError: { name: "NotFoundError", data: { message: "Agent not found" } } }));
    const error = await rejection(runner.runChild(options(), "hi"));
    expect(error.code).toBe("model_error");
    expect(error.message).toContain("Agent not found");
  });

  it("fails on a session.error event for the session even when the HTTP call hangs", async () => {
    const { fake, clock, runner } = setup((call, f) => {
      setTimeout(() => {
        f.emit({ type: "session.error", properties: { sessionID: "other", error: { name: "UnknownError", data: { message: "no" } } } });
        f.emit({
          type: "session.error",
          properties: { sessionID: call.sessionID, error: { name: "ProviderAuthError", data: { providerID: "acme", message: "expired" } } },
        });
      }, 5);
      return { hang: true, silent: true };
    });
    const error = await rejection(runner.runChild(options(), "hi"));
    expect(error.code).toBe("model_error");
    expect(error.message).toContain("expired");
    expect(clock.pending()).toBe(0);
    expect(fake.listeners).toBe(0);
  });

  it("maps an aborted message to session_aborted", async () => {
    const { runner } = setup(() => ({ error: { name: "MessageAbortedError", data: { message: "Aborted" } } }));
    expect((await rejection(runner.runChild(options(), "hi"))).code).toBe("session_aborted");
  });

  it("an aborted turn of a session otto stopped fails with tool_loop and otto's reason; other sessions' aborts stay session_aborted", async () => {
    const fake = new FakeOpencode(() => ({ error: { name: "MessageAbortedError", data: { message: "Aborted" } } }));
    const stopped = new Set<string>();
    const runner = new SessionRunner(
      { client: fake.client, events: fake.events, log, clock: trackingClock() },
      { graceMs: 10, stopReason: (id) => (stopped.has(id) ? "stopped: called bash `echo hi` with the same arguments 5 times" : undefined) },
    );
    const child = await runner.openChild(options());
    stopped.add(child.id);
    const error = await rejection(child.prompt("hi"));
    expect(error.code).toBe("tool_loop");
    expect(error.message).toBe("stopped: called bash `echo hi` with the same arguments 5 times");
    expect(error.fix).toContain("limits.repeated_tool_calls");
    expect((await rejection(runner.runChild(options(), "hi"))).code).toBe("session_aborted");
  });

  it("times out a prompt that never returns: aborts the child, leaks no timer or listener", async () => {
    const { fake, clock, runner } = setup(() => ({ hang: true, silent: true }));
    const child = await runner.openChild(options({ timeoutMs: 30 }));
    const error = await rejection(child.prompt("hi"));
    expect(error.code).toBe("session_timeout");
    expect(fake.aborted).toEqual([child.id]);
    expect(clock.pending()).toBe(0);
    expect(fake.listeners).toBe(0);
    await child.close();
  });

  it("aborts the child when the tool's signal fires", async () => {
    const controller = new AbortController();
    const { fake, clock, runner } = setup(() => {
      setTimeout(() => controller.abort(), 5);
      return { hang: true, silent: true };
    });
    const child = await runner.openChild(options({ signal: controller.signal }));
    const error = await rejection(child.prompt("hi"));
    expect(error.code).toBe("session_aborted");
    expect(error.message).toContain(`session ${child.id}`);
    expect(fake.aborted).toEqual([child.id]);
    expect(clock.pending()).toBe(0);
    expect(fake.listeners).toBe(0);
    await expect(child.prompt("again")).rejects.toMatchObject({ code: "session_aborted" });
  });

  it("reads the reply from the session when idle arrives but the HTTP call does not return", async () => {
    const { clock, runner } = setup((call, f) => {
      setTimeout(() => f.emit({ type: "session.idle", properties: { sessionID: call.sessionID } }), 5);
      return { text: "from messages", hang: true };
    });
    const reply = await runner.runChild(options(), "hi");
    expect(reply.text).toBe("from messages");
    expect(clock.pending()).toBe(0);
  });
});

describe("session lifetime", () => {
  it("deletes the session on close unless keep", async () => {
    const { fake, runner } = setup();
    const dropped = await runner.openChild(options());
    const kept = await runner.openChild(options({ keep: true }));
    await dropped.close();
    await kept.close();
    await dropped.close();
    expect(fake.deleted).toEqual([dropped.id]);
    await expect(dropped.prompt("hi")).rejects.toMatchObject({ code: "session_closed" });
  });

  it("runChild closes the session even when the prompt fails", async () => {
    const { fake, runner } = setup(() => ({ text: "x", model: OTHER }));
    await expect(runner.runChild(options(), "hi")).rejects.toMatchObject({ code: "model_mismatch" });
    expect(fake.deleted).toHaveLength(1);
    expect(fake.sessions.size).toBe(0);
  });

  it("runs at most `concurrency` turns at once", async () => {
    const { fake, runner } = setup(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { text: "done" };
    }, 2);
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => runner.runChild(options(), `job ${i}`)));
    expect(replies.map((r) => r.text)).toEqual(Array(6).fill("done"));
    expect(fake.maxInFlight).toBe(2);
    expect(runner.activeCount + runner.pendingCount).toBe(0);
  });

  it("a signal that fires while waiting for a slot rejects without prompting", async () => {
    const { fake, runner } = setup(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { text: "done" };
    }, 1);
    const controller = new AbortController();
    const first = runner.runChild(options(), "first");
    const second = runner.runChild(options({ signal: controller.signal }), "second");
    setTimeout(() => controller.abort(), 5);
    await expect(second).rejects.toMatchObject({ code: "session_aborted" });
    await first;
    expect(fake.prompts.map((p) => p.body.parts[0]?.text)).toEqual(["first"]);
  });
});
