/** Notifications: webhooks (Teams Adaptive Card, Slack, JSON), a shell command and the TUI toast. */
export { createNotifier, type NotifierDeps, type Webhook } from "./notifier.ts";
export { notifierFor, sendNotification } from "./runtime.ts";
export { jsonPayload, plainMessage, slackPayload, teamsPayload } from "./payloads.ts";
export { KIND_LABEL, type Notify, type NotifyEvent, type NotifyKind, type NotifyReport } from "./types.ts";
export { limitNotify, MAX_NOTIFICATIONS_PER_PR_CYCLE, type LimitOptions } from "./limit.ts";
