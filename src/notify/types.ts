/** What otto tells people about, wherever they are listening (webhooks, a command, the TUI). */
export type NotifyKind = "pr_green" | "pr_gave_up" | "spec_finished" | "human_needed";

export interface NotifyEvent {
  kind: NotifyKind;
  /** One line, e.g. "PR #42 is green". */
  title: string;
  /** A few lines of detail. */
  text: string;
  /** Where to look (the PR, the spec folder). */
  url?: string;
  /** Label → value pairs shown as a table (repository, branch, checks…). */
  facts?: Record<string, string>;
}

export type Notify = (event: NotifyEvent) => Promise<NotifyReport>;

export interface NotifyReport {
  /** Channels that took the event ("teams webhook example.com", "toast", "command"). */
  delivered: string[];
  /** Channels that failed, with the reason (secrets redacted). */
  failed: Array<{ channel: string; error: string }>;
}

export const KIND_LABEL: Record<NotifyKind, string> = {
  pr_green: "PR green",
  pr_gave_up: "PR: otto gave up",
  spec_finished: "Spec run finished",
  human_needed: "A human is needed",
};
