import type { Part } from "@opencode-ai/sdk";
import { describe, expect, it } from "vitest";
import { restoreAnswers, shownText } from "../../../src/host/command-output.ts";

/* What the TUI shows in place of a command turn's "Done.", and what the model reads back. */

const tool = (name: string, output: string) => ({ type: "tool", tool: name, state: { status: "completed", output } }) as unknown as Part;
const text = (value: string) => ({ type: "text", text: value }) as unknown as Part;
const TABLE = "| a | b |\n|---|---|\n| 1 | 2 |";

describe("a command's output in place of the model's answer", () => {
  it("replaces a bare Done, and goes under anything else the model said", () => {
    expect(shownText("Done.", TABLE)).toBe(TABLE);
    expect(shownText(" done\n", TABLE)).toBe(TABLE);
    expect(shownText("The tool ran.", TABLE)).toBe(`The tool ran.\n\n${TABLE}`);
  });

  it("gives the model its own answer back after an otto command's tool, and touches nothing else", () => {
    const messages = [
      { info: { role: "user" }, parts: [text(TABLE)] },
      { info: { role: "assistant" }, parts: [tool("otto_worktree", TABLE)] },
      { info: { role: "assistant" }, parts: [text(TABLE)] },
      { info: { role: "assistant" }, parts: [tool("otto_cost", TABLE), text(`The tool ran.\n\n${TABLE}`)] },
      { info: { role: "assistant" }, parts: [tool("bash", TABLE), text(TABLE)] },
      { info: { role: "assistant" }, parts: [tool("otto_cost", TABLE)] },
      { info: { role: "user" }, parts: [text("thanks")] },
      { info: { role: "assistant" }, parts: [text(TABLE)] },
    ];
    restoreAnswers(messages, new Set(["otto_worktree", "otto_cost"]));
    const texts = messages.map((m) => m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text));
    expect(texts).toEqual([[TABLE], [], ["Done."], ["The tool ran."], [TABLE], [], ["thanks"], [TABLE]]);
  });
});
