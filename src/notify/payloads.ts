import { KIND_LABEL, type NotifyEvent } from "./types.ts";

/*
 * Pure payload builders, one per webhook type.
 */

/**
 * A Teams workflow webhook ("When a Teams webhook request is received", Power Automate) takes a
 * message whose attachments are Adaptive Cards; 1.4 renders on every Teams client.
 * https://learn.microsoft.com/en-us/power-automate/overview-adaptive-cards
 * https://adaptivecards.io/explorer/
 */
export function teamsPayload(event: NotifyEvent, time: string): unknown {
  const facts = Object.entries(event.facts ?? {}).map(([title, value]) => ({ title, value }));
  const body: unknown[] = [
    { type: "TextBlock", text: KIND_LABEL[event.kind], size: "Small", isSubtle: true, wrap: true },
    { type: "TextBlock", text: event.title, size: "Medium", weight: "Bolder", wrap: true },
    { type: "TextBlock", text: event.text, wrap: true },
  ];
  if (facts.length > 0) body.push({ type: "FactSet", facts });
  body.push({ type: "TextBlock", text: time, size: "Small", isSubtle: true });
  const card = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body,
    ...(event.url ? { actions: [{ type: "Action.OpenUrl", title: "Open", url: event.url }] } : {}),
  };
  return { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }] };
}

/** Slack's `text` is the fallback for notifications; blocks carry the layout. https://api.slack.com/messaging/webhooks */
export function slackPayload(event: NotifyEvent): unknown {
  const escape = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const title = event.url ? `<${event.url}|${escape(event.title)}>` : escape(event.title);
  const facts = Object.entries(event.facts ?? {}).map(([k, v]) => ({ type: "mrkdwn", text: `*${escape(k)}*\n${escape(v)}` }));
  return {
    text: `${KIND_LABEL[event.kind]}: ${event.title}`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `*${title}*\n${escape(event.text)}` } },
      ...(facts.length > 0 ? [{ type: "section", fields: facts.slice(0, 10) }] : []),
      { type: "context", elements: [{ type: "mrkdwn", text: `otto · ${KIND_LABEL[event.kind]}` }] },
    ],
  };
}

/** otto's own event object, for anything else that listens. */
export function jsonPayload(event: NotifyEvent, time: string): unknown {
  return {
    source: "otto",
    event: event.kind,
    title: event.title,
    text: event.text,
    url: event.url ?? null,
    facts: event.facts ?? {},
    time,
  };
}

/** One line for a toast or a shell command. */
export function plainMessage(event: NotifyEvent): string {
  return `${event.title}${event.url ? ` (${event.url})` : ""}`;
}
