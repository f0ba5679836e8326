/**
 * What a user pays in tokens: the bytes otto sends to models, per stage, for the demo's spec
 * (add → requirements → research → design → task generate) and its execute run, beside the bytes
 * the model answered. The scripted model plays the demo (scripts/demo-steps.ts), so every figure
 * is the same from one run to the next. Run alone with `node --import tsx bench/tokens.ts [--write]`.
 */
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import { createWorkspace, runOpencode, slashCommand, startModelServer, type RecordedRequest, type Step } from "../test/support/index.ts";
import { demoScript, DEMO_FILES, DEMO_STEPS } from "../scripts/demo-steps.ts";
import { kindOf } from "../test/e2e/spec/spec-model.ts";
import { execKindOf } from "../test/e2e/execute/kinds.ts";
import { formatCost, formatTokens, ledgerFile, readLedger, sumUsage, type Usage } from "../src/cost/index.ts";
import { cachedPrefixes, inputDollars, providerOrder, type CacheProbe } from "../test/support/prefix-cache.ts";
import fs from "node:fs";

/**
 * The list price the dollars are computed at: Anthropic's Claude Sonnet 4.5, $3 per million input
 * and $15 per million output tokens, given to both scripted models in opencode.json.
 */
const PRICE = { name: "Claude Sonnet 4.5's list price", input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/**
 * The usage the scripted model reports: about 4 bytes a token, the usual rule of thumb for English
 * and code, applied to the request's whole body (what a provider bills as input, no cache) and to
 * the answer's text and tool arguments.
 */
const tokensOf = (n: number): number => Math.max(1, Math.round(n / 4));

/**
 * The figures before slash commands ran as agents of their own (same bench, same demo): a
 * command's turn ran as the `otto` agent, with its prompt, OpenCode's provider prompt and all 21
 * tools. Kept so the section shows the change side by side.
 */
export const BEFORE: Record<string, { requests: number; input: number }> = {
  add: { requests: 4, input: 101_716 },
  requirements: { requests: 4, input: 103_573 },
  research: { requests: 5, input: 121_313 },
  design: { requests: 4, input: 103_931 },
  "task generate": { requests: 4, input: 107_275 },
  execute: { requests: 22, input: 528_739 },
  "spec pipeline (add → task generate)": { requests: 21, input: 537_808 },
};

/** The same, by the otto prompt a session started with: the slash commands' own turns. */
export const BEFORE_SESSIONS: Record<string, { requests: number; input: number }> = {
  "slash command": { requests: 12, input: 378_744 },
};

const STAGES = ["add", "requirements", "research", "design", "task generate", "execute"];

interface Tally {
  requests: number;
  /** The body in the provider's order (tools, system, conversation): what a prompt cache sees. */
  ordered: number;
  /** Of which a provider's cache would serve (the scripted model's prefix measure). */
  cached: number;
  /** The whole request body: messages, tool schemas, options. */
  input: number;
  /** Of which the messages (system prompt, otto's prompts, history). */
  messages: number;
  output: number;
}

const bytes = (value: unknown): number => Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value ?? ""));

function outputBytes(step: Step | undefined): number {
  if (!step) return 0;
  switch (step.kind) {
    case "text":
      return bytes(step.content);
    case "tools":
      return bytes(step.content ?? "") + step.calls.reduce((n, c) => n + bytes(c.args), 0);
    case "delay":
    case "as":
      return outputBytes(step.step);
    default:
      return 0;
  }
}

function firstUser(req: RecordedRequest): string {
  const first = req.messages.find((m) => m.role === "user");
  return typeof first?.content === "string" ? first.content : (first?.content ?? []).map((p) => p.text ?? "").join("");
}

/**
 * The share a cache would serve had every session run in a working tree of its own: the same
 * requests, with the project's path in OpenCode's environment block made different per session.
 */
function shareWithTreePerSession(probes: readonly (CacheProbe & { session: string })[], project: string): number {
  const sessions = new Map<string, number>();
  const moved = probes.map((p) => {
    const n = sessions.get(p.session) ?? sessions.size;
    sessions.set(p.session, n);
    return { ...p, text: p.text.split(project).join(`${project}-tree-${n}`) };
  });
  const cached = cachedPrefixes(moved).reduce((a, b) => a + b, 0);
  const all = moved.reduce((n, p) => n + Buffer.byteLength(p.text), 0);
  return all > 0 ? cached / all : 0;
}

/** The otto prompt a session was started with: the kind of its first user message. */
function sessionKind(req: RecordedRequest): string {
  const textOf = firstUser(req);
  if (/<args>/.test(textOf)) return "slash command";
  return kindOf({ lastUser: textOf, lastRole: "user", isTitle: false }) ?? execKindOf(textOf) ?? "other";
}

const add = (t: Tally, req: RecordedRequest): void => {
  t.requests += 1;
  t.ordered += bytes(providerOrder(req.body));
  t.cached += req.cachedBytes ?? 0;
  t.input += bytes(req.body);
  t.messages += bytes(req.messages);
  t.output += outputBytes(req.reply);
};

const empty = (): Tally => ({ requests: 0, ordered: 0, cached: 0, input: 0, messages: 0, output: 0 });

const sumTallies = (list: Iterable<Tally>): Tally =>
  [...list].reduce(
    (t, x) => ({
      requests: t.requests + x.requests,
      ordered: t.ordered + x.ordered,
      cached: t.cached + x.cached,
      input: t.input + x.input,
      messages: t.messages + x.messages,
      output: t.output + x.output,
    }),
    empty(),
  );

export async function benchTokens(log: (line: string) => void = () => undefined): Promise<string> {
  // A provider with a prompt cache: each request's usage reports the prefix it shares with the last five minutes' requests.
  const model = await startModelServer({ promptCache: true });
  // OTTO_BENCH_DUMP=file keeps every request as the provider reads it, one JSON line each, to see what varies.
  const dump = process.env.OTTO_BENCH_DUMP;
  if (dump) fs.writeFileSync(dump, "");
  const price = { cost: { input: PRICE.input, output: PRICE.output, cache_read: PRICE.cacheRead, cache_write: PRICE.cacheWrite } };
  const ws = await createWorkspace({
    model,
    files: DEMO_FILES,
    ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" } },
    config: { provider: { mock: { models: { m1: price, m2: price } } } },
  });
  const byStage = new Map<string, Tally>();
  const byKind = new Map<string, Tally>();
  // Every request as the cache saw it, with the first user message that names its session.
  const probes: (CacheProbe & { session: string })[] = [];
  // What otto's own ledger recorded per stage: its child sessions' calls (not the slash command's turn, not titles).
  const spent = new Map<string, Usage>();
  const ledger = ledgerFile(ws.env);
  const usage = (req: RecordedRequest) => {
    const prompt = tokensOf(bytes(req.body));
    const completion = tokensOf(outputBytes(req.reply));
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };
  try {
    for (const step of DEMO_STEPS) {
      const stage = step.args.join(" ").replace(/^add .*/, "add");
      if (!STAGES.includes(stage)) continue;
      model.reset();
      model.usage = usage;
      const recorded = (await readLedger(ledger)).length;
      model.script(...slashCommand(step.tool), ...demoScript(step, ws.project));
      const result = await runOpencode(ws, ["run", "--command", step.command, "--", ...step.args], { timeoutMs: 300_000 });
      if (result.exitCode !== 0)
        throw new Error(`${step.command} ${step.args.join(" ")} failed (${String(result.exitCode)}):\n${result.stderr}\n${result.stdout}`);
      const tally = empty();
      for (const req of model.turns()) {
        probes.push({ at: req.startedAt, model: req.model, text: providerOrder(req.body), session: firstUser(req) });
        add(tally, req);
        const kind = sessionKind(req);
        if (dump)
          fs.appendFileSync(
            dump,
            `${JSON.stringify({ stage, kind, seq: req.seq, cached: req.cachedBytes, text: providerOrder(req.body) })}\n`,
          );
        const k = byKind.get(kind) ?? empty();
        add(k, req);
        byKind.set(kind, k);
      }
      byStage.set(stage, tally);
      const stageSpend = sumUsage((await readLedger(ledger)).slice(recorded).map((e) => e.usage));
      spent.set(stage, stageSpend);
      log(
        `${stage}: ${tally.requests} requests, ${tally.input} bytes in, ${tally.output} bytes out, ${stageSpend.input + stageSpend.output} tokens, $${stageSpend.usd}`,
      );
    }
    for (const [kind, t] of byKind) log(`session ${kind}: ${t.requests} requests, ${t.input} bytes in`);
  } finally {
    await ws.cleanup();
    await model.close();
  }
  const treePerSession = shareWithTreePerSession(probes, ws.project);
  return `${render(byStage, byKind)}${renderDollars(byStage, spent)}${renderCache(byStage, byKind, treePerSession)}`;
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;

function render(byStage: Map<string, Tally>, byKind: Map<string, Tally>): string {
  const spec = sumTallies([...byStage].filter(([s]) => s !== "execute").map(([, t]) => t));
  const before = (figures: Record<string, { requests: number; input: number }>, name: string): string => {
    const b = figures[name];
    return b ? `${b.requests} / ${kb(b.input)}` : "—";
  };
  const row = (name: string, t: Tally): string =>
    `| ${name} | ${before(BEFORE, name)} | ${t.requests} | ${kb(t.input)} | ${kb(t.messages)} | ${kb(t.output)} |`;
  const command = byKind.get("slash command") ?? empty();
  const perTurn = (requests: number, input: number): string => kb(requests > 0 ? input / requests : 0);
  const commandBefore = BEFORE_SESSIONS["slash command"];
  return [
    "## What a user pays in tokens",
    "",
    "Bytes of the requests otto's flows send to models for the demo (`npm run demo`: a three-file express app, the spec `add-rate-limiting-api`), played by the scripted model, so the figures repeat exactly. A request's input is its whole body as sent (messages, OpenCode's system prompt, the tool schemas); the messages column is the conversation alone. Every turn of a session resends the session's history: that is how chat APIs work, and why a stage's cost grows with its turns.",
    "",
    "Before: the same demo when a slash command's own turns ran as the `otto` agent, with its prompt, OpenCode's provider prompt and every tool (21); each command now runs as an agent of its own (`otto.spec`, …) that is offered the command's tool alone, with a prompt of a few lines (docs/decisions.md). An earlier change, the spec prompts no longer resending what a session already has, had cut the spec pipeline from 579.8 KB to 525.2 KB.",
    "",
    "| stage | before: requests / input | requests | input | messages | output |",
    "|---|---|---|---|---|---|",
    ...[...byStage].map(([stage, t]) => row(stage, t)),
    row("spec pipeline (add → task generate)", spec),
    "",
    `**A slash command's turn: ${perTurn(command.requests, command.input)} of input** (before: ${commandBefore ? perTurn(commandBefore.requests, commandBefore.input) : "—"}), two turns per command (the tool call, then the reply).`,
    "",
    "By the otto prompt each session started with (all stages):",
    "",
    "| session | before: requests / input | requests | input | messages | output |",
    "|---|---|---|---|---|---|",
    ...[...byKind]
      .sort((a, b) => b[1].input - a[1].input)
      .map(
        ([kind, t]) =>
          `| ${kind} | ${before(BEFORE_SESSIONS, kind)} | ${t.requests} | ${kb(t.input)} | ${kb(t.messages)} | ${kb(t.output)} |`,
      ),
    "",
  ].join("\n");
}

/** Tokens and dollars per stage, from otto's ledger, beside the bytes of the table above. */
function renderDollars(byStage: Map<string, Tally>, spent: Map<string, Usage>): string {
  // A stage that sent requests but left nothing in the ledger was not metered: say so, never "$0.00".
  const row = (name: string, bytesIn: number, u: Usage): string =>
    u.requests === 0 && bytesIn > 0
      ? `| ${name} | ${kb(bytesIn)} | 0 | — | — | — | not in the ledger |`
      : `| ${name} | ${kb(bytesIn)} | ${u.requests} | ${formatTokens(u.input)} | ${formatTokens(u.cacheRead)} | ${formatTokens(u.output)} | ${formatCost(u)} |`;
  const stages = [...spent].filter(([s]) => s !== "execute");
  const specBytes = [...byStage].filter(([s]) => s !== "execute").reduce((n, [, t]) => n + t.input, 0);
  const allBytes = [...byStage.values()].reduce((n, t) => n + t.input, 0);
  return [
    "",
    `What the same demo costs in tokens and dollars, at ${PRICE.name} ($${PRICE.input} / $${PRICE.output} per million input / output tokens), as otto's own ledger recorded it (\`/otto-cost\`'s source; before the scripted model played a prompt cache: 172.4k input tokens, $0.53 for the whole demo). The scripted model reports usage as an OpenAI-compatible provider with a prompt cache does: prompt tokens = the request's bytes / 4, of which \`cached_tokens\` = the bytes the cache measure below would serve / 4; output tokens = the answer's bytes (text and tool arguments) / 4, about 4 bytes a token for English and code. OpenCode records the cached part as cache reads (its input tokens are the rest), priced at Sonnet's $${PRICE.cacheRead.toFixed(2)} per million; such a provider reports no cache writes, so the dollars here have no write premium (the table below adds it). The ledger counts otto's sessions only, not the slash command's own turn or title requests, so its calls are fewer than the requests above.`,
    "",
    "| stage | input (bytes, all requests) | otto's calls | input tokens | cache reads | output tokens | cost |",
    "|---|---|---|---|---|---|---|",
    ...[...spent].map(([stage, u]) => row(stage, byStage.get(stage)?.input ?? 0, u)),
    row("spec pipeline (add → task generate)", specBytes, sumUsage(stages.map(([, u]) => u))),
    row("the whole demo", allBytes, sumUsage(spent.values())),
    ...([...spent].some(([stage, u]) => u.requests === 0 && (byStage.get(stage)?.requests ?? 0) > 0)
      ? [
          "",
          'A stage marked "not in the ledger" sent its requests from sessions otto\'s meter did not record, so its cost is missing from the totals too.',
        ]
      : []),
    "",
  ].join("\n");
}

/**
 * The demo's figures before its requests were shaped for a prompt cache (same bench, same demo):
 * bytes in the provider's order and of them the bytes a cache would serve, per stage and session.
 */
export const BEFORE_CACHE: Record<string, { ordered: number; cached: number }> = {
  add: { ordered: 42921, cached: 0 },
  "the whole demo": { ordered: 713810, cached: 470531 },
  "spec pipeline (add → task generate)": { ordered: 245123, cached: 127561 },
  requirements: { ordered: 44858, cached: 29165 },
  research: { ordered: 62504, cached: 42026 },
  design: { ordered: 45216, cached: 28180 },
  "task generate": { ordered: 49624, cached: 28190 },
  execute: { ordered: 468687, cached: 342970 },
};

/** The same, by the otto prompt a session started with. */
export const BEFORE_CACHE_SESSIONS: Record<string, { ordered: number; cached: number }> = {
  "slash command": { ordered: 28111, cached: 0 },
  requirements: { ordered: 38381, cached: 14168 },
  review: { ordered: 123765, cached: 72312 },
  research: { ordered: 19680, cached: 13852 },
  refine: { ordered: 17820, cached: 13844 },
  design: { ordered: 19921, cached: 13852 },
  tasks: { ordered: 23410, cached: 13862 },
  "task-briefing": { ordered: 62100, cached: 41696 },
  "execute-task": { ordered: 136864, cached: 111429 },
  "question-harvest": { ordered: 49477, cached: 27732 },
  "phase-review": { ordered: 43163, cached: 27730 },
  "external-assumptions": { ordered: 51304, cached: 38192 },
  "domain-hardening": { ordered: 50352, cached: 38230 },
  "docs-align": { ordered: 49462, cached: 43632 },
};

const pct = (part: number, whole: number): string => `${whole > 0 ? Math.round((part / whole) * 100) : 0} %`;
const usd = (n: number): string => `$${n.toFixed(2)}`;

/** The share of the input a provider's prompt cache would serve, and what it bills, per stage and session. */
function renderCache(byStage: Map<string, Tally>, byKind: Map<string, Tally>, treePerSession: number): string {
  const before = (figures: Record<string, { ordered: number; cached: number }>, name: string): string => {
    const b = figures[name];
    return b ? `${pct(b.cached, b.ordered)} (${usd(inputDollars(b.ordered, b.cached, PRICE.input).withCache)})` : "—";
  };
  const row = (figures: Record<string, { ordered: number; cached: number }>, name: string, t: Tally): string => {
    const d = inputDollars(t.ordered, t.cached, PRICE.input);
    return `| ${name} | ${before(figures, name)} | ${t.requests} | ${kb(t.ordered)} | ${kb(t.cached)} | **${pct(t.cached, t.ordered)}** | ${usd(d.uncached)} | ${usd(d.withCache)} |`;
  };
  const header = [
    "| %s | before: share served (input dollars with a cache) | requests | input | served from a cache | share | input dollars, no cache | with a cache |",
    "|---|---|---|---|---|---|---|---|",
  ];
  const spec = sumTallies([...byStage].filter(([s]) => s !== "execute").map(([, t]) => t));
  return [
    "",
    "### What a prompt cache would serve",
    "",
    `A provider's prompt cache bills the beginning of a request that repeats, byte for byte, the beginning of a request of the last five minutes at a tenth of the input price (Anthropic: reads 0.1×, writes 1.25×, from 1,024 tokens on). The scripted model measures it (test/support/prefix-cache.ts): each request's body in the provider's order (tools, system, conversation), and the longest beginning it shares with an earlier request to the same model. Input dollars at ${PRICE.name} ($${PRICE.input} per million input tokens, 4 bytes a token): without a cache, and with one (the served bytes at 0.1×, the rest written at 1.25×).`,
    "",
    header[0]!.replace("%s", "stage"),
    header[1]!,
    ...[...byStage].map(([stage, t]) => row(BEFORE_CACHE, stage, t)),
    row(BEFORE_CACHE, "spec pipeline (add → task generate)", spec),
    row(BEFORE_CACHE, "the whole demo", sumTallies(byStage.values())),
    "",
    header[0]!.replace("%s", "session"),
    header[1]!,
    ...[...byKind].sort((a, b) => b[1].ordered - a[1].ordered).map(([kind, t]) => row(BEFORE_CACHE_SESSIONS, kind, t)),
    "",
    'Before: the same bench on the prompts as they were, when the review prompt put the artifact before its rules, the briefing and the executor put the task before the rules and the spec, and the phase prompts named the phase in their first sentence; each now keeps what is the same for every session of its kind first and what varies last (docs/cost.md, "Requests shaped for a prompt cache").',
    "",
    `What no cache serves: the slash commands' own turns (each under 1,024 tokens, which no provider caches), the first session of each kind to each model (its prompt is its own: the add stage's two, the first briefing, executor, phase review, question harvest), and what each session adds of its own (the artifact under review, the task, the logs). OpenCode's system message carries its environment block (working directory, date) after the agent's prompt and before otto's message: sessions in one working tree share it, as a phase's parallel tasks do; had every session run in a tree of its own, a cache would serve ${pct(treePerSession * 1000, 1000)} of the demo's input (measured on the same requests with the path made different per session). The date changes the block once a day.`,
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection("## What a user pays in tokens", section);
}

runStandalone(import.meta.url, benchTokens, writeSection);
