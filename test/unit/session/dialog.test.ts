import { describe, expect, it } from "vitest";
import type { Part } from "@opencode-ai/sdk";
import { SessionRunner, renderDialog } from "../../../src/session/index.ts";
import { FakeOpencode, MODEL, log } from "./fake-opencode.ts";

const token = `ghp_${"Z".repeat(36)}`;

function toolPart(sessionID: string, output: string): Part {
  return {
    id: "prt_tool",
    sessionID,
    messageID: "msg_x",
    type: "tool",
    callID: "call_1",
    tool: "bash",
    state: {
      status: "completed",
      input: { command: `curl -H "Authorization: token ${token}" https://api.github.com` },
      output,
      title: "curl",
      metadata: {},
      time: { start: 0, end: 1 },
    },
  };
}

describe("dialog", () => {
  it("renders prompts, tool calls (truncated) and replies, and redacts tokens", async () => {
    const fake = new FakeOpencode((call) => ({ parts: [toolPart(call.sessionID, "x".repeat(50))], text: `Done. Used ${token}.` }));
    const runner = new SessionRunner({ client: fake.client, events: fake.events, log });
    const reply = await runner.runChild(
      { directory: "/repo", agent: "otto-executor", model: MODEL, title: "d", timeoutMs: 5_000 },
      `Use the token ${token}`,
      { withDialog: true },
    );
    const dialog = reply.dialog ?? "";
    expect(dialog).not.toContain(token);
    expect(dialog).toContain("[REDACTED]");
    expect(dialog).toContain("## User");
    expect(dialog).toContain("## Assistant (acme/big-1, otto-executor)");
    expect(dialog).toContain("**Tool `bash`** (completed)");
    expect(dialog).toContain("Done. Used [REDACTED].");
  });

  it("cuts long tool output and shows errors", () => {
    const dialog = renderDialog(
      [
        {
          info: {
            id: "m",
            sessionID: "s",
            role: "assistant",
            time: { created: 0 },
            parentID: "u",
            providerID: "acme",
            modelID: "big-1",
            mode: "otto-reviewer",
            path: { cwd: "/", root: "/" },
            cost: 0,
            tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
            error: { name: "APIError", data: { message: "rate limited", isRetryable: true } },
          },
          parts: [toolPart("s", "y".repeat(100))],
        },
      ],
      { maxToolChars: 10 },
    );
    expect(dialog).toContain("yyyyyyyyyy\n… (90 more characters cut)");
    expect(dialog).toContain("> **Error** APIError: rate limited");
  });
});
