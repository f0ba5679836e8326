import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OPENCODE_BIN, text, toolCall, until, useE2E } from "../../support/index.ts";

/*
 * The real TUI, driven through tmux: a slash command's result is shown by otto itself, verbatim,
 * in place of the model's answer (rendered as markdown), and the model is not asked to repeat it
 * (it answers "Done.", which is what it reads back in its next turn).
 */

const SOCKET = `otto-tui-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
const screen = (): string => tmux("capture-pane", "-p", "-J", "-t", "tui", "-S", "-200");
const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** The TUI in the workspace's project, with its isolated environment (tmux keeps its own). */
async function startTui(ws: { root: string; project: string; env: Record<string, string | undefined> }): Promise<void> {
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
}

async function typeLine(line: string): Promise<void> {
  tmux("send-keys", "-t", "tui", "-l", line);
  await until(`'${line}' typed in the prompt`, () => screen().includes(line), 30_000, 200);
  tmux("send-keys", "-t", "tui", "Enter");
}

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
    await startTui(ws);
    await typeLine("/otto-config validate");

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

  it("/otto-worktree list draws its table as the answer, rendered, not in the user's bar; the model reads back its Done.", async () => {
    const ws = await e2e.workspace();
    ws.writeOttoConfig({ repos: [{ name: "app", primary_dir: ws.project }] }, "user");
    e2e.model.script(
      {
        label: "call",
        match: { tool: "otto_worktree", lastRole: "user", lastUser: /otto-worktree|<args>/ },
        reply: (req) => toolCall("otto_worktree", { args: /<args>([\s\S]*?)<\/args>/.exec(req.lastUser)?.[1] ?? "" }),
      },
      { label: "done", match: { tool: "otto_worktree", lastRole: "tool" }, reply: text("Done.") },
      { label: "next", match: { lastUser: /thanks/ }, reply: text("You are welcome.") },
    );
    await startTui(ws);
    await typeLine("/otto-worktree list");
    const shown = await until(
      "the table on the screen",
      () => {
        const s = screen();
        // The whole table drawn: under load the screen is caught mid-render otherwise.
        const drawn = s.split("\n").some((l) => /│\s*branch\s*│\s*path\s*│/.test(l));
        return s.includes("Repo 'app'") && /\bupstream\b/.test(s) && drawn ? s : undefined;
      },
      120_000,
      500,
    );
    // Rendered as markdown: the table drawn with rules, no raw separator row or pipe-fenced row.
    const lines = shown.split("\n");
    expect(lines.some((l) => /│\s*branch\s*│\s*path\s*│/.test(l))).toBe(true);
    expect(shown).not.toMatch(/\|-{3}\|/);
    expect(shown).not.toMatch(/\| branch \| path \|/);
    // Where the answer belongs, in place of the model's "Done.": outside the user's bar (┃).
    expect(lines.some((l) => l.trim() === "Done.")).toBe(false);
    for (const line of lines.filter((l) => l.includes("Repo 'app'") || /│\s*main\s*│/.test(l))) expect(line).not.toMatch(/^\s*┃/);

    // The next turn: the model reads its own "Done." back, and the table once (in the tool's result).
    await typeLine("thanks");
    await until("the second answer", () => screen().includes("You are welcome."), 120_000, 500);
    const next = e2e.model.turns().find((t) => t.answeredBy === "next");
    const sent = JSON.stringify(next?.body.messages ?? []);
    expect(sent.split("Repo 'app'").length - 1).toBe(1);
    const assistant = (next?.body.messages as Array<{ role: string; content?: unknown }>).filter((m) => m.role === "assistant");
    expect(JSON.stringify(assistant.at(-1)?.content)).toContain("Done.");
  });
});
