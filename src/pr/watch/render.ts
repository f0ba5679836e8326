import { formatUsage, sumUsage, ZERO_USAGE } from "../../cost/index.ts";
import type { PrDocument } from "../store/document.ts";
import { prLabel, utcDay } from "../context/daily-caps.ts";
import { spendLines, type WatcherSpend } from "./watcher-spend.ts";
import type { CycleSummary, WatcherRecord } from "./lock.ts";
import { formatInterval } from "./schedule.ts";

/** Text for `watch once` and `watch status`. Pure. */

const OUTCOME: Record<string, string> = {
  updated: "changed",
  unchanged: "no change",
  final: "not polled (closed)",
  backoff: "backing off after errors",
  error: "poll failed",
  removed: "removed meanwhile",
};

export function renderCycle(cycle: CycleSummary): string {
  const errors = cycle.results.filter((r) => r.outcome === "error").length;
  const seconds = ((Date.parse(cycle.finished) - Date.parse(cycle.started)) / 1000).toFixed(1);
  const lines = [`Cycle ${cycle.started}: ${cycle.results.length} PR(s) in ${seconds} s, ${errors} error(s).`];
  if (cycle.results.length > 0) {
    lines.push("", "| PR | status | pipeline | this cycle | spent |", "|---|---|---|---|---|");
    for (const r of cycle.results) {
      const outcome = `${OUTCOME[r.outcome] ?? r.outcome}${r.error ? `: ${r.error.replace(/\|/g, "\\|").replace(/\n/g, " ").slice(0, 160)}` : ""}`;
      lines.push(`| ${r.key} | ${r.status} | ${r.summary} | ${outcome} | ${formatUsage(r.usage ?? ZERO_USAGE)} |`);
    }
    lines.push(`| total | | | | ${formatUsage(sumUsage(cycle.results.flatMap((r) => (r.usage ? [r.usage] : []))))} |`);
  }
  return lines.join("\n");
}

export interface StatusInput {
  record: WatcherRecord | undefined;
  alive: boolean;
  /** This process runs the watcher. */
  local: boolean;
  nextRun: Date | undefined;
  docs: readonly PrDocument[];
  logFile: string;
  /** Today's spend against the daily caps. */
  spend?: WatcherSpend;
}

export function renderStatus(input: StatusInput): string {
  const { record } = input;
  const lines: string[] = [];
  if (record && input.alive) {
    const where = input.local ? "in this OpenCode process" : `in pid ${record.pid} on ${record.host}`;
    lines.push(`PR watcher: running ${where} (${record.mode}, every ${formatInterval(record.interval_ms)}, since ${record.started}).`);
    lines.push(
      `PID: ${record.pid}. Heartbeat: ${record.heartbeat}. Next cycle: ${input.nextRun?.toISOString() ?? record.next_cycle ?? "unknown"}.`,
    );
    if (record.mode === "detached" || record.mode === "service") lines.push(`Log: ${input.logFile}`);
  } else if (record && !record.stopped) {
    lines.push(`PR watcher: not running (pid ${record.pid} stopped without releasing the lock; the next watcher takes it over).`);
  } else {
    lines.push("PR watcher: not running. Start it with /otto-pr watch start (TUI) or /otto-pr watch start --detach.");
  }
  lines.push(`Last cycle: ${record?.last_cycle ? `${record.last_cycle.finished} (${record.last_cycle.results.length} PRs)` : "never"}.`);
  const spend = input.spend;
  if (spend) lines.push(...spendLines(spend));
  lines.push("");
  if (input.docs.length === 0) lines.push("No PRs are tracked.");
  else {
    lines.push("| PR | status | pipeline | last checked | errors | spent today |", "|---|---|---|---|---|---|");
    for (const d of input.docs) {
      const pipeline = d.data.pipeline ?? "unknown";
      const held = spend && d.data.cap_hold === utcDay(spend.now) ? " (held: daily cap)" : "";
      const today = spend ? formatUsage(spend.byPr.get(prLabel(d.data)) ?? ZERO_USAGE) : "—";
      lines.push(
        `| ${d.key} | ${d.data.status}${held} | ${pipeline} | ${d.data.last_checked ?? "never"} | ${d.data.errors > 0 ? `${d.data.errors} (retry ${d.data.retry_at ?? "next cycle"})` : "0"} | ${today} |`,
      );
    }
  }
  return lines.join("\n");
}
