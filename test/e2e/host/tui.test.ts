import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OPENCODE_BIN, text, toolCall, until, useE2E } from "../../support/index.ts";

/*
 * The real TUI, driven through tmux: a slash command's result is shown by otto itself, verbatim,
 * and the model is not asked to repeat it (it answers "Done.").
 */

const SOCKET = `otto-tui-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
const screen = (): string => tmux("capture-pane", "-p", "-J", "-t", "tui", "-S", "-200");
const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

describe("otto's slash commands in the real TUI", () => {
  const e2e = useE2E();
  afterEach(() => {
    try {
      tmux("kill-server");
    } catch {
      // No server left: nothing to clean.
    }
  });

  it("/otto-config validate shows otto's output as otto wrote it, the model only says Done, and the TUI keeps the user's agent", async () => {
    const ws = await e2e.workspace({ userOttoConfig: { opencode: { url: "http://localhost:4096" } } });
    e2e.model.script(
      {
        label: "call",
        match: { tool: "otto_config", lastRole: "user" },
        reply: (req) => toolCall("otto_config", { args: /<args>([\s\S]*?)<\/args>/.exec(req.lastUser)?.[1] ?? "" }),
      },
      { label: "done", match: { tool: "otto_config", lastRole: "tool" }, reply: text("Done.") },
    );
    // The TUI starts in the project with the workspace's isolated environment (tmux keeps its own).
    const script = path.join(ws.root, "tui.sh");
    const env = { ...ws.env, PWD: ws.project, TERM: "xterm-256color" };
    fs.writeFileSync(
      script,
      `${Object.entries(env)
        .map(([k, v]) => `export ${k}=${quote(String(v))}`)
        .join("\n")}\ncd ${quote(ws.project)}\nexec ${quote(OPENCODE_BIN)}\n`,
    );
    tmux("new-session", "-d", "-s", "tui", "-x", "200", "-y", "60", `sh ${quote(script)}`);
    await until("the TUI to draw its prompt", () => screen().includes("ctrl+p commands"), 90_000, 300);
    tmux("send-keys", "-t", "tui", "-l", "/otto-config validate");
    await until("the command typed in the prompt", () => screen().includes("/otto-config validate"), 30_000, 200);
    tmux("send-keys", "-t", "tui", "Enter");

    const shown = await until(
      "otto's output on the screen",
      () => {
        const s = screen();
        return s.includes("opencode.url is no longer used") ? s : undefined;
      },
      120_000,
      500,
    );
    expect(shown).toContain("OK, with warnings");
    // The turn ran as the command's own hidden agent, and the TUI's agent is still the user's
    // (OpenCode's TUI takes a session's agent from its user message only if the agent is in its list).
    expect(shown).toMatch(/┃\s+Build · M1/);
    expect(shown).toMatch(/Otto\.Config · M1/);
    // The model called the tool once and answered "Done."; nothing it said holds otto's text.
    const turns = e2e.model.turns();
    expect(turns.filter((t) => t.answeredBy === "call")).toHaveLength(1);
    expect(turns.filter((t) => t.answeredBy === "done")).toHaveLength(1);
    expect(turns.find((t) => t.answeredBy === "call")?.lastUser).toContain("Then reply with only the word Done.");
  });
});
