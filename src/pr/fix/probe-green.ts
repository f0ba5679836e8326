import { redact } from "../../core/index.ts";
import type { PrStore } from "../store/store.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import type { PipelineStatus } from "../types.ts";
import { appendHistory, renderEntry } from "./decide.ts";
import { recordFlakes, savedLine, type FlakeDeps } from "./flake-record.ts";

/*
 * The other half of a re-run to tell a flake (screen-failure.ts, pr.flakes.rerun): the watcher saw
 * the same head go green after otto re-ran its failed jobs, so each check's failure was a flake.
 * Recorded in the flake ledger and the PR's document; no model call was made.
 */

export async function settleFlakeProbe(
  deps: FlakeDeps & { store: PrStore; secrets: readonly string[] },
  doc: PrDocument,
  pipeline: PipelineStatus,
): Promise<boolean> {
  const probe = doc.data.flake_probe;
  if (!probe || pipeline.state !== "success" || probe.sha !== pipeline.headSha) return false;
  const ref = { provider: doc.data.provider, repo: doc.data.repo, url: doc.data.url, id: doc.data.id, key: doc.key, head: probe.sha };
  const ledger = await recordFlakes(deps, ref, probe.checks, "rerun");
  const names = probe.checks.map((c) => c.name).join(", ");
  const time = deps.now().toISOString();
  const entry = renderEntry({
    time,
    trigger: "watcher",
    title: "Flaky",
    headSha: probe.sha,
    failedChecks: probe.checks.map((c) => c.name),
    result: `${names} passed when otto re-ran the failed jobs of this commit: recorded as a flake, no fix session, ${savedLine(ledger)}.`,
  });
  await deps.store.update(doc.key, (current) =>
    current.data.flake_probe?.sha !== probe.sha
      ? undefined
      : {
          ...current,
          data: { ...current.data, flake_probe: undefined },
          sections: appendHistory(current.sections, redact(entry, deps.secrets)),
          log: [
            ...current.log,
            logLine(time, `flaky: ${names} passed on the re-run of ${probe.sha.slice(0, 7)}; recorded in the flake ledger`),
          ],
        },
  );
  return true;
}
