import { formatError, redact } from "../../core/index.ts";
import { parseDuration } from "../../config/index.ts";
import { checkCommands, resolveChecks, type ResolvedChecks } from "../../analysis/index.ts";
import { runChecks, type CheckResult } from "../../workspace/index.ts";
import type { PrDocument } from "../store/document.ts";
import { readFlakeLedger } from "../store/flakes.ts";
import type { Check } from "../types.ts";
import { cleanLine, trimLog } from "./trim-log.ts";
import { fingerprintLog } from "./fingerprint.ts";
import { ledgerOf, recordFlakes, recordInherited, savedLine, type FlakeDeps, type FlakyCheck } from "./flake-record.ts";
import { screenFailure, type CheckFacts } from "./screen.ts";
import { short, type Flow, type FixOutcome } from "./flow.ts";

/*
 * Step 3a of the fix flow (order: run-fix.ts), before the analysis session: is it the PR's failure?
 * The facts screen.ts judges are gathered here: each failed check's fingerprint (from the logs just
 * downloaded), the flake ledger, the default branch's newest completed run of the check, and the
 * project's checks run in the sandbox on the PR's head when the CI check runs one of them (that
 * run is the baseline phase 2 would run anyway). An inherited failure or a flake ends the run here
 * without a model call; otherwise the findings go to the analysis.
 */

export interface Screened {
  /** The run ended here (inherited, flaky, or a re-run to tell). */
  outcome?: FixOutcome;
  /** What otto found, one line per failed check, for the analysis prompt. */
  findings?: string;
  /** The project's checks, run on the untouched tree: phase 2's baseline. */
  baseline?: { resolved: ResolvedChecks; results: CheckResult[] };
}

/** Whether a CI log shows `command` being run: a line that is the command (GitHub's `Run npm test`, a shell's `$ npm test`, Azure's script contents). */
export function logRuns(log: string, command: string): boolean {
  const wanted = command.trim();
  return log.split("\n").some((raw) => {
    const line = cleanLine(raw)
      .replace(/^##\[group\]/, "")
      .replace(/^(?:Run|\$|>|\+)\s+/, "")
      .trim();
    return line === wanted;
  });
}

function flakeDeps(flow: Flow): FlakeDeps {
  const { deps } = flow;
  return {
    storeDir: deps.store.dir,
    config: deps.config,
    notify: deps.notify,
    secrets: deps.secrets,
    backend: flow.input.backend,
    now: () => deps.now(),
    log: (l, m, e) => deps.log(l, m, e),
  };
}

function prRef(flow: Flow) {
  const { doc, pr } = flow.input;
  return { provider: doc.data.provider, repo: doc.data.repo, url: doc.data.url, id: doc.data.id, key: doc.key, head: pr.headSha };
}

export async function screenInTree(
  flow: Flow,
  claimed: PrDocument,
  dir: string,
  texts: ReadonlyMap<string, string>,
  /** What each check's steps ran, from its whole log (log-commands.ts); the trimmed text when absent. */
  commands: ReadonlyMap<string, string> = texts,
): Promise<Screened> {
  const { deps, input } = flow;
  const { pr } = input;
  const settings = deps.config.pr.flakes;
  const failed = input.pipeline.checks.filter((c) => c.state === "failure");
  if (!settings.enabled || failed.length === 0) return {};
  let ledger;
  try {
    ledger = await readFlakeLedger(ledgerOf(flakeDeps(flow), prRef(flow)));
  } catch (error) {
    // A broken ledger must not stop fixes: the failure goes to the analysis as before.
    const message = formatError(error);
    deps.log("warn", `flake screening of ${flow.key} skipped`, { error: message });
    await flow.record({ log: [`flake screening skipped: ${message}`] });
    return {};
  }
  flow.progress("otto pr fix: is it the PR's failure? (flake ledger, the default branch, local checks)");
  const facts: CheckFacts[] = failed.map((check) => {
    const text = texts.get(check.name);
    const fingerprint = text ? fingerprintLog(text) : undefined;
    return {
      name: check.name,
      url: check.url,
      fingerprint,
      knownFlake: fingerprint ? (ledger.flakes[fingerprint.id]?.occurrences.length ?? 0) : 0,
    };
  });
  let baseline: Screened["baseline"];
  if (!facts.every((f) => f.knownFlake > 0)) {
    for (const f of facts) f.base = await baseRun(flow, f);
    const inherited = facts.every((f) => f.fingerprint && f.base?.fingerprint?.id === f.fingerprint.id && f.base.state === "failure");
    if (!inherited) baseline = await runLocally(flow, dir, failed, commands, facts);
  }
  const rerunDone = (claimed.data.rerun_shas ?? []).includes(pr.headSha);
  const screening = screenFailure(facts, { rerunDone, rerun: settings.rerun });
  if (screening.kind === "inherited") return { outcome: await inheritedEnd(flow, claimed, facts) };
  if (screening.kind === "flaky") return { outcome: await flakyEnd(flow, claimed, facts, screening.how, rerunDone) };
  if (screening.kind === "probe") {
    const outcome = await probe(flow, claimed, facts);
    if (outcome) return { outcome };
  }
  const findings = screening.kind === "pr" ? screening.findings.join("\n") : "";
  await flow.record({
    data: { flake_probe: undefined, inherited: undefined },
    ...(findings ? { log: [`the PR's own failure: ${findings.replace(/\n- /g, "; ").replace(/^- /, "")}`] } : {}),
  });
  return { ...(findings ? { findings } : {}), ...(baseline ? { baseline } : {}) };
}

/** The default branch's newest completed run of the check, with its failure's fingerprint; undefined when it cannot be had. */
async function baseRun(flow: Flow, facts: CheckFacts): Promise<CheckFacts["base"]> {
  const { deps, input } = flow;
  const { pr, backend } = input;
  if (!facts.fingerprint || !backend.baseCheck) return undefined;
  const signal = deps.signal ? { signal: deps.signal } : {};
  try {
    const logId = input.pipeline.checks.find((c) => c.name === facts.name)?.logId;
    const base = await backend.baseCheck(pr, facts.name, { ...signal, logId });
    if (!base) return undefined;
    if (base.state !== "failure" || !base.logId) return { state: base.state, sha: base.sha };
    const log = trimLog(redact(await backend.getBuildLogs(pr, base.logId, signal), deps.secrets));
    return { state: base.state, sha: base.sha, fingerprint: fingerprintLog(log) };
  } catch (error) {
    deps.signal?.throwIfAborted();
    deps.log("warn", `could not read ${facts.name} on ${pr.targetBranch} for ${flow.key}`, {
      error: redact(formatError(error), deps.secrets),
    });
    return undefined;
  }
}

/** The project's checks in the sandbox on the PR's head, when a failed CI check runs one of them. */
async function runLocally(
  flow: Flow,
  dir: string,
  failed: readonly Check[],
  texts: ReadonlyMap<string, string>,
  facts: CheckFacts[],
): Promise<Screened["baseline"]> {
  const { deps } = flow;
  const resolved = await resolveChecks("pr.verify", deps.config.pr.verify, dir);
  const commands = checkCommands(resolved);
  const mapped = failed.map((c) => commands.filter((command) => logRuns(texts.get(c.name) ?? "", command)));
  if (!mapped.some((m) => m.length > 0)) return undefined;
  flow.progress(`otto pr fix: running ${commands.length} check(s) on the PR's head in the sandbox`);
  const results = await runChecks(commands, {
    cwd: dir,
    timeoutMs: parseDuration(deps.config.spec.verify_timeout),
    env: deps.env,
    sandbox: deps.config.sandbox,
    secrets: deps.secrets,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  mapped.forEach((ran, i) => {
    const f = facts[i];
    if (f && ran.length > 0) f.local = { commands: ran, passed: ran.every((c) => results.find((r) => r.command === c)?.passed === true) };
  });
  return { resolved, results };
}

const flaky = (facts: readonly CheckFacts[]): FlakyCheck[] =>
  facts.map((f) => ({ name: f.name, fingerprint: f.fingerprint?.id, lines: f.fingerprint?.lines ?? [], url: f.url }));

async function inheritedEnd(flow: Flow, claimed: PrDocument, facts: readonly CheckFacts[]): Promise<FixOutcome> {
  const { input } = flow;
  const { pr } = input;
  const checks = facts.map((f) => ({
    name: f.name,
    fingerprint: f.fingerprint?.id ?? "",
    lines: f.fingerprint?.lines ?? [],
    baseSha: f.base?.sha ?? "",
  }));
  const { ledger, since, first } = await recordInherited(flakeDeps(flow), prRef(flow), checks);
  const text = checks.map((c) => `main is red: ${c.name}, since ${short(since.get(c.name) ?? c.baseSha)}`).join("; ");
  const state = checks.map((c) => ({
    name: c.name,
    fingerprint: c.fingerprint,
    since: since.get(c.name) ?? c.baseSha,
    base_sha: c.baseSha,
  }));
  // One entry per head and failure: the watcher hands the failure back at each full poll while main is red.
  const same =
    claimed.data.inherited?.sha === pr.headSha &&
    claimed.data.inherited.checks.map((c) => c.fingerprint).join() === state.map((c) => c.fingerprint).join();
  const result = `${text}: ${pr.targetBranch} fails the same way, so this is not the PR's failure; no fix session, ${savedLine(ledger)}. The PR is fixed normally once ${pr.targetBranch} is green.`;
  await flow.record({
    data: { status: "failed", fix_started: undefined, inherited: { sha: pr.headSha, checks: state }, flake_probe: undefined },
    ...(same ? {} : { entry: flow.entry("Inherited", result) }),
    log: [`fixing → failed: ${text}; not the PR's failure, no fix session`],
  });
  if (first.length > 0)
    await flow.notifyHuman(
      `${pr.targetBranch} is red in ${pr.repo}: ${first.map((c) => c.name).join(", ")}`,
      `${text}. PR #${pr.number} (${pr.title}) fails the same way; otto does not fix a failure a PR inherited and fixes it normally once ${pr.targetBranch} is green. Failure: ${first[0]?.lines.join(" | ") ?? ""}`,
    );
  return flow.outcome(
    "inherited",
    `${text}. Not the PR's failure: no fix session (${savedLine(ledger)}).`,
    `The PR is fixed normally once ${pr.targetBranch} is green.`,
  );
}

async function flakyEnd(
  flow: Flow,
  claimed: PrDocument,
  facts: readonly CheckFacts[],
  how: "known" | "local",
  rerunDone: boolean,
): Promise<FixOutcome> {
  const { input } = flow;
  const { pr } = input;
  const ledger = await recordFlakes(flakeDeps(flow), prRef(flow), flaky(facts), how);
  const names = facts.map((f) => f.name).join(", ");
  const why =
    how === "known"
      ? `${names}: a known flaky failure (in the flake ledger ${Math.max(...facts.map((f) => f.knownFlake))} time(s))`
      : `${names}: fails on the forge, but ${[...new Set(facts.flatMap((f) => f.local?.commands ?? []))].map((c) => `\`${c}\``).join(", ")} passes in otto's sandbox on this head`;
  let rerun = "this commit's failed jobs were re-run already; re-run them by hand";
  let status: "watching" | "failed" = "failed";
  let rerunShas = claimed.data.rerun_shas;
  if (!rerunDone) {
    const done = await input.backend.runWorkflow(pr, "rerun_failed");
    rerunShas = [...(claimed.data.rerun_shas ?? []), pr.headSha].slice(-20);
    rerun = done.done ? done.message : `the provider could not re-run it: ${done.message}`;
    if (done.done) status = "watching";
  }
  const notify = status === "failed" && claimed.data.human_sha !== pr.headSha;
  const result = `${why}: recorded as a flake, no fix session, ${savedLine(ledger)}. ${rerun}`;
  await flow.record({
    data: {
      status,
      fix_started: undefined,
      flake_probe: undefined,
      inherited: undefined,
      ...(rerunShas ? { rerun_shas: rerunShas } : {}),
      ...(notify ? { human_sha: pr.headSha } : {}),
    },
    entry: flow.entry("Flaky", result),
    log: [`fixing → ${status}: flaky (${how}): ${names}; no fix session`],
  });
  if (notify) await flow.notifyHuman(`PR #${pr.number} fails on a flaky check: ${pr.title}`, `${why}. ${rerun}.`);
  return flow.outcome("flaky", `Flaky on \`${short(pr.headSha)}\`: ${result}`);
}

/** Nothing tells yet (pr.flakes.rerun): the failed jobs run again once; the next poll judges by the result. Undefined when no re-run could start. */
async function probe(flow: Flow, claimed: PrDocument, facts: readonly CheckFacts[]): Promise<FixOutcome | undefined> {
  const { input, deps } = flow;
  const { pr } = input;
  const done = await input.backend.runWorkflow(pr, "rerun_failed");
  const rerunShas = [...(claimed.data.rerun_shas ?? []), pr.headSha].slice(-20);
  if (!done.done) {
    deps.log("info", `no re-run of ${flow.key} to tell a flake: ${done.message}`);
    await flow.record({
      data: { rerun_shas: rerunShas },
      log: [`no re-run to tell a flake (${done.message}); the failure goes to the analysis`],
    });
    return undefined;
  }
  const names = facts.map((f) => f.name).join(", ");
  const text = `${names} not reproduced locally: re-ran the failed jobs of \`${short(pr.headSha)}\` to tell a flake (${done.message}); no model call. A pass records a flake; failing again goes to the analysis.`;
  await flow.record({
    data: {
      status: "watching",
      fix_started: undefined,
      rerun_shas: rerunShas,
      flake_probe: { sha: pr.headSha, at: flow.time(), checks: flaky(facts).map((c) => ({ ...c, lines: [...c.lines] })) },
    },
    entry: flow.entry("Re-run", text),
    log: [`fixing → watching: re-run of ${names} to tell a flake (${done.message})`],
  });
  return flow.outcome("rerun", text);
}
