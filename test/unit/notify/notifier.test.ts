import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { maskSecrets } from "../../../src/config/index.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { createNotifier, sendNotification, slackPayload, teamsPayload, type NotifyEvent } from "../../../src/notify/index.ts";

const event: NotifyEvent = {
  kind: "pr_green",
  title: "PR #42 is green: Add auth",
  text: "All checks pass on feature/auth (3/3 passing).",
  url: "https://github.com/octo/app/pull/42",
  facts: { Repository: "octo/app" },
};

/** A webhook receiver that records bodies; `fail` answers 500. */
async function receiver(fail = false) {
  const bodies: Array<{ path: string; body: unknown }> = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => {
      bodies.push({ path: req.url ?? "", body: JSON.parse(text) as unknown });
      res.writeHead(fail ? 500 : 202).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("notifications", () => {
  it("builds an Adaptive Card for a Teams workflow and blocks for Slack", () => {
    const teams = teamsPayload(event, "2026-03-01T12:00:00.000Z") as {
      type: string;
      attachments: Array<{ contentType: string; content: Record<string, unknown> }>;
    };
    expect(teams.type).toBe("message");
    expect(teams.attachments[0]?.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(teams.attachments[0]?.content).toMatchObject({
      type: "AdaptiveCard",
      version: "1.4",
      actions: [{ type: "Action.OpenUrl", url: event.url }],
    });
    expect(JSON.stringify(teams)).toContain('"FactSet"');
    const slack = slackPayload({ ...event, title: "a <b> & c" }) as { text: string; blocks: unknown[] };
    expect(slack.text).toBe("PR green: a <b> & c");
    expect(JSON.stringify(slack.blocks)).toContain("a &lt;b&gt; &amp; c");
  });

  it("sends to every webhook, the command and the toast; redacts secrets; reports failures without the URL", async () => {
    const ok = await receiver();
    const broken = await receiver(true);
    closers.push(ok.close, broken.close);
    const toasts: string[] = [];
    const commands: Array<Record<string, string>> = [];
    const notify = createNotifier({
      webhooks: [
        { type: "teams", url: `${ok.url}/teams?sig=SIGNATURE123` },
        { type: "json", url: `${ok.url}/json` },
        { type: "slack", url: `${broken.url}/slack/T000/SECRETPATH` },
      ],
      command: "notify-send",
      toast: async (title, message, variant) => void toasts.push(`${variant}: ${title} / ${message}`),
      runCommand: async (_command, env) => {
        commands.push(env);
        return { exitCode: 0 };
      },
      fetch: globalThis.fetch,
      now: () => new Date("2026-03-01T12:00:00Z"),
      secrets: ["hunter2-secret"],
      timeoutMs: 2000,
    });
    const report = await notify({ ...event, text: "token hunter2-secret and ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked" });
    expect(report.delivered.sort()).toEqual(
      [
        "command",
        "json webhook 127.0.0.1:" + ok.url.split(":").pop(),
        "teams webhook 127.0.0.1:" + ok.url.split(":").pop(),
        "toast",
      ].sort(),
    );
    expect(report.failed).toEqual([{ channel: expect.stringMatching(/^slack webhook 127\.0\.0\.1:\d+$/) as unknown, error: "HTTP 500" }]);
    const sent = JSON.stringify([ok.bodies, broken.bodies, toasts, commands]);
    expect(sent).not.toContain("hunter2-secret");
    expect(sent).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz");
    expect(JSON.stringify(report)).not.toContain("SECRETPATH");
    expect(ok.bodies.find((b) => b.path === "/json")?.body).toMatchObject({
      source: "otto",
      event: "pr_green",
      url: event.url,
      time: "2026-03-01T12:00:00.000Z",
    });
    expect(commands[0]).toMatchObject({ OTTO_EVENT: "pr_green", OTTO_MESSAGE: `${event.title} (${event.url})` });
    expect(toasts[0]).toMatch(/^success: PR #42 is green/);
  });

  it("never throws, even when every channel fails", async () => {
    const notify = createNotifier({
      webhooks: [{ type: "json", url: "http://127.0.0.1:9/unreachable" }],
      toast: async () => {
        throw new Error("no TUI");
      },
      runCommand: async () => ({ exitCode: 1 }),
      command: "false",
      fetch: globalThis.fetch,
      now: () => new Date(),
      secrets: [],
      timeoutMs: 500,
    });
    const report = await notify(event);
    expect(report.delivered).toEqual([]);
    expect(report.failed.map((f) => f.channel).sort()).toEqual(["command", "json webhook 127.0.0.1:9", "toast"]);
  });

  it("masks webhook URLs in /otto-config show", () => {
    const masked = maskSecrets({
      notify: {
        webhooks: [
          { type: "teams", url: "https://x/y?sig=abc" },
          { type: "json", url: "https://z" },
        ],
      },
    });
    expect(JSON.stringify(masked)).not.toContain("sig=abc");
    expect(masked.notify.webhooks[1]?.url).toBe("[REDACTED] (9 chars)");
  });
});

describe("sendNotification", () => {
  it("loads the config of a directory and sends; a broken config is reported, not thrown", async () => {
    const ok = await receiver();
    closers.push(ok.close);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-notify-"));
    closers.push(async () => fs.rmSync(home, { recursive: true, force: true }));
    const configDir = path.join(home, ".config", "otto");
    fs.mkdirSync(configDir, { recursive: true });
    fs.writeFileSync(
      path.join(configDir, "otto.jsonc"),
      JSON.stringify({ notify: { webhooks: [{ type: "json", url: `${ok.url}/done` }], toast: true } }),
    );
    const toasts: unknown[] = [];
    const logs: string[] = [];
    const runtime = {
      client: { tui: { showToast: async (options: unknown) => void toasts.push(options) } },
      env: { HOME: home },
      log: { log: (_level: string, message: string) => void logs.push(message) },
    } as unknown as Pick<Runtime, "client" | "env" | "log">;
    const report = await sendNotification(runtime, home, {
      kind: "spec_finished",
      title: "Spec rate-limiting finished",
      text: "6/6 tasks done.",
    });
    expect(report.failed).toEqual([]);
    expect(ok.bodies[0]?.body).toMatchObject({ event: "spec_finished", title: "Spec rate-limiting finished" });
    expect(toasts).toEqual([{ body: { title: "Spec rate-limiting finished", message: "6/6 tasks done.", variant: "info" } }]);
    fs.writeFileSync(path.join(configDir, "otto.jsonc"), "{ broken");
    const broken = await sendNotification(runtime, home, { kind: "human_needed", title: "t", text: "x" });
    expect(broken.failed[0]?.channel).toBe("config");
    expect(logs).toContain("otto could not send a notification");
  });
});
