import { redact } from "../core/index.ts";
import { jsonPayload, plainMessage, slackPayload, teamsPayload } from "./payloads.ts";
import type { Notify, NotifyEvent, NotifyReport } from "./types.ts";

export interface Webhook {
  type: "teams" | "slack" | "json";
  url: string;
}

export interface NotifierDeps {
  webhooks: readonly Webhook[];
  /** notify.command, run with the message in OTTO_MESSAGE. */
  command?: string;
  /** The TUI toast (client.tui.showToast); undefined when notify.toast is off. */
  toast?: (title: string, message: string, variant: "success" | "warning" | "info") => Promise<void>;
  runCommand(command: string, env: Record<string, string>): Promise<{ exitCode: number | undefined }>;
  fetch: typeof globalThis.fetch;
  now(): Date;
  /** Every secret of the config (tokens, webhook URLs): redacted from what is sent. */
  secrets: readonly string[];
  /** Time limit of one webhook call. */
  timeoutMs: number;
}

const VARIANT = { pr_green: "success", pr_gave_up: "warning", spec_finished: "info", human_needed: "warning" } as const;

/** A channel's name for reports and logs: never the URL, which carries its signature. */
function channelName(hook: Webhook): string {
  try {
    return `${hook.type} webhook ${new URL(hook.url).host}`;
  } catch {
    return `${hook.type} webhook`;
  }
}

function payloadFor(hook: Webhook, event: NotifyEvent, time: string): unknown {
  if (hook.type === "teams") return teamsPayload(event, time);
  if (hook.type === "slack") return slackPayload(event);
  return jsonPayload(event, time);
}

function clean(event: NotifyEvent, secrets: readonly string[]): NotifyEvent {
  const r = (s: string): string => redact(s, secrets);
  return {
    ...event,
    title: r(event.title),
    text: r(event.text),
    ...(event.url ? { url: r(event.url) } : {}),
    ...(event.facts ? { facts: Object.fromEntries(Object.entries(event.facts).map(([k, v]) => [r(k), r(v)])) } : {}),
  };
}

/**
 * Sends an event to every channel at once. Never throws: a notification that cannot be
 * delivered must not fail the work it reports on; failures come back in the report.
 */
export function createNotifier(deps: NotifierDeps): Notify {
  return async (raw) => {
    const event = clean(raw, deps.secrets);
    const time = deps.now().toISOString();
    const report: NotifyReport = { delivered: [], failed: [] };
    const attempt = async (channel: string, send: () => Promise<void>): Promise<void> => {
      try {
        await send();
        report.delivered.push(channel);
      } catch (error) {
        report.failed.push({ channel, error: redact(error instanceof Error ? error.message : String(error), deps.secrets) });
      }
    };
    const jobs = deps.webhooks.map((hook) =>
      attempt(channelName(hook), async () => {
        const response = await deps.fetch(hook.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(payloadFor(hook, event, time)),
          signal: AbortSignal.timeout(deps.timeoutMs),
        });
        await response.body?.cancel();
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
      }),
    );
    const command = deps.command;
    if (command) {
      jobs.push(
        attempt("command", async () => {
          const result = await deps.runCommand(command, {
            OTTO_MESSAGE: plainMessage(event),
            OTTO_EVENT: event.kind,
            OTTO_URL: event.url ?? "",
          });
          if (result.exitCode !== 0) throw new Error(`exit code ${String(result.exitCode)}`);
        }),
      );
    }
    const toast = deps.toast;
    if (toast) jobs.push(attempt("toast", () => toast(event.title, event.text, VARIANT[event.kind])));
    await Promise.all(jobs);
    return report;
  };
}
