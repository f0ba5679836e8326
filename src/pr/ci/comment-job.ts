import { formatError } from "../../core/index.ts";
import { ZERO_USAGE } from "../../cost/index.ts";
import { renderCommentPass } from "../comments/render-pass.ts";
import { runCommentPass } from "../comments/run-comments.ts";
import { prLabel } from "../context/spend.ts";
import { configuredModels } from "../fix/entry.ts";
import type { PrInfo } from "../types.ts";
import { checkoutPrBranch } from "./checkout.ts";
import { honourClaims } from "./claims.ts";
import { settleFlakeProbe } from "./fix-job.ts";
import { markSeen, withDocument, type FlowResult, type Job } from "./job.ts";
import { carrySpend } from "./ledger-carry.ts";
import type { StateStore } from "./state-comment.ts";
import { stateOf } from "./state.ts";

/*
 * The comment flow of a CI job (docs/ci.md): the watcher's comment pass on a document built from
 * the state, the day's spend (claims of jobs that never finished included) carried into the
 * runner's ledger first, the state written back at the end.
 */

/** `quiet`: a pass that found nothing to answer is "nothing" (the job's other flow came first). */
export async function commentFlow(job: Job, pr: PrInfo, store: StateStore, handled: string[], quiet = false): Promise<FlowResult> {
  const read = store.found.state;
  const settled = markSeen(await settleFlakeProbe(job, pr, store), handled);
  const before = honourClaims(settled, job.id, job.now()).state;
  job.say(`otto ci: ${await checkoutPrBranch({ dir: job.input.directory, branch: pr.sourceBranch, env: job.runtime.env })}`);
  const label = prLabel({ repo: pr.repo, id: String(pr.number) });
  await carrySpend(job.runtime.env, label, before.spend, job.now());
  return withDocument(job, pr, before, async (doc, readDoc, docs) => {
    let result: FlowResult;
    try {
      const report = await runCommentPass(
        {
          store: docs,
          sessions: job.runtime.sessions,
          model: async () => configuredModels(job.ctx.loaded.config.models).analysis,
          parentID: job.input.sessionID,
          cwd: job.input.directory,
          config: job.ctx.loaded.config,
          secrets: job.ctx.loaded.secrets,
          env: job.runtime.env,
          notify: job.ctx.notify,
          now: job.now,
          log: (level, message, extra) => job.runtime.log.log(level, message, extra),
          signal: job.input.signal,
          progress: (m) => job.input.progress(m),
        },
        { doc, pr, backend: job.ctx.registry.get(pr.provider) },
      );
      const idle = report.answered.length + report.recovered.length + report.failed.length === 0 && !report.held;
      result =
        quiet && idle && (report.usage?.requests ?? 0) === 0
          ? { outcome: "nothing", why: "no new reviewer comments to answer" }
          : { outcome: "done", body: `### comments\n\n${renderCommentPass(report, pr)}`, usage: report.usage ?? ZERO_USAGE };
    } finally {
      await store
        .save(read, stateOf(await readDoc(), before, job.now()))
        .catch((error: unknown) => job.say(`otto ci: could not write otto's state comment: ${formatError(error)}`));
    }
    return result;
  });
}
