import type { ToolDefinition } from "@opencode-ai/plugin";
import { OttoError, cell } from "../core/index.ts";
import { findRepoRoot } from "../config/index.ts";
import type { Runtime } from "../runtime.ts";
import {
  RULES_FILE,
  RuleProposal,
  USER_KEY,
  appliedCounts,
  proposeRules,
  proposeUserRules,
  readRules,
  readUserRules,
  rulesPath,
  setStatus,
  setUserStatus,
  userRulesPath,
  type Rule,
  type RuleStatus,
} from "../rules/index.ts";
import { runGit } from "../workspace/index.ts";
import { repoPaths } from "./cost.ts";
import { learnVerb } from "./rules-learn.ts";
import { cwdOf, defineCommand, type CommandContext, type Values, type Verb } from "./command.ts";

/*
 * /otto-rules: the team's rules (docs/rules.md). The repository's live in `.otto/rules.md`
 * (committed, reviewed like code); a person's own in `rules.md` next to otto's user config.
 */

const str = (values: Values, key: string): string | undefined => (typeof values[key] === "string" ? values[key] : undefined);

async function rootOf(ctx: CommandContext): Promise<string> {
  const root = await findRepoRoot(cwdOf(ctx));
  if (!root)
    throw new OttoError(
      "not_a_repo",
      `${cwdOf(ctx)} is not inside a git repository, so it has no ${RULES_FILE}.`,
      "Run the command inside the repository, or add --user for your own rules across repositories.",
    );
  return root;
}

/** Who added a rule: git's user.name in the repository, else the login. */
async function author(ctx: CommandContext, dir: string): Promise<string> {
  const name = await runGit(["config", "user.name"], { cwd: dir, env: ctx.runtime.env }).catch(() => undefined);
  return name?.exitCode === 0 && name.stdout.trim() ? name.stdout.trim() : (ctx.runtime.env.USER ?? "you");
}

const add: Verb = {
  path: ["add"],
  args: "<text> [--scope <glob>]... [--user]",
  summary:
    "Add a rule you wrote, accepted at once (--scope: path globs from the repository root, default the whole repository; --user: your own rules)",
  options: { scope: { type: "string", multiple: true }, user: { type: "boolean" } },
  positionals: { min: 1, max: Infinity },
  async run({ values, positionals }, ctx) {
    const text = positionals.join(" ");
    const scopes = values.scope;
    const scope = Array.isArray(scopes) && scopes.length > 0 ? scopes : ["**"];
    const user = values.user === true;
    const dir = user ? cwdOf(ctx) : await rootOf(ctx);
    const at = new Date().toISOString();
    const proposal = {
      text,
      scope,
      sources: [{ kind: "added" as const, url: "", author: await author(ctx, dir), at }],
      seen: 1,
      first_seen: at,
      last_seen: at,
    };
    const parsed = RuleProposal.safeParse(proposal);
    if (!parsed.success) {
      throw new OttoError(
        "rule_invalid",
        `That rule cannot be added: ${parsed.error.issues.map((i) => i.message).join("; ")}.`,
        "Write the rule as plain text, e.g. /otto-rules add \"Use logger.info, not console.log\" --scope 'src/**'",
      );
    }
    const [proposed] = user ? await proposeUserRules([parsed.data], ctx.runtime.env) : await proposeRules(dir, [parsed.data]);
    if (!proposed) {
      throw new OttoError(
        "rules_full",
        `The rules file is full of pending and accepted rules; the rule was not added.`,
        "Reject or delete some rules, then add it again.",
      );
    }
    // A person wrote it: accepted at once (a merged duplicate keeps its id; a rejected one stays rejected).
    const rule =
      proposed.status === "rejected"
        ? proposed
        : user
          ? await setUserStatus(proposed.id, "accepted", ctx.runtime.env)
          : await setStatus(dir, proposed.id, "accepted");
    const file = user ? userRulesPath(ctx.runtime.env) : rulesPath(dir);
    const lines = [
      `${rule.status === "accepted" ? "Accepted" : "Kept as rejected"} rule ${rule.id}${rule.seen > 1 ? ` (merged with the same rule, seen ${rule.seen} times)` : ""}: ${rule.text}`,
      `Scope: ${rule.scope.join(", ")}. File: ${file}`,
    ];
    if (rule.status === "rejected")
      lines.push(`It was rejected before; accept it with /otto-rules accept ${rule.id}${user ? " --user" : ""}.`);
    if (!user) lines.push(`Commit ${RULES_FILE} so the team's reviews and otto's other checkouts see it.`);
    return { title: `otto rules: ${rule.id}`, output: lines.join("\n") };
  },
};

function statusVerb(word: "accept" | "reject", status: RuleStatus): Verb {
  return {
    path: [word],
    args: `<id> [--user]${word === "reject" ? " [--reason <text>]" : ""}`,
    summary:
      word === "accept"
        ? "Accept a rule: from now on otto applies it to the work in its scope"
        : "Reject a rule: otto does not apply it, and learning does not propose it again",
    options: { user: { type: "boolean" }, ...(word === "reject" ? { reason: { type: "string" } } : {}) },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals }, ctx) {
      const id = (positionals[0] ?? "").trim();
      const reason = str(values, "reason");
      const rule =
        values.user === true
          ? await setUserStatus(id, status, ctx.runtime.env, reason)
          : await setStatus(await rootOf(ctx), id, status, reason).catch(async (error: unknown) => {
              // Not in the repository's file: the person's own rules may have it.
              const mine = (await readUserRules(ctx.runtime.env)).rules.some((r) => r.id === id);
              if (mine) return setUserStatus(id, status, ctx.runtime.env, reason);
              throw error;
            });
      return {
        title: `otto rules: ${word}ed ${rule.id}`,
        output: `${status === "accepted" ? "Accepted" : "Rejected"} rule ${rule.id}: ${rule.text}\nScope: ${rule.scope.join(", ")}.`,
      };
    },
  };
}

interface Listed {
  id: string;
  status: RuleStatus;
  text: string;
  scope: string[];
  seen: number;
  applied: number;
  first_seen: string;
  last_seen: string;
  reason?: string;
  sources: Rule["sources"];
}

const listed = (rule: Rule, applied: Record<string, number>): Listed => ({
  id: rule.id,
  status: rule.status,
  text: rule.text,
  scope: rule.scope,
  seen: rule.seen,
  applied: applied[rule.id] ?? 0,
  first_seen: rule.first_seen,
  last_seen: rule.last_seen,
  ...(rule.reason ? { reason: rule.reason } : {}),
  sources: rule.sources,
});

function sourceCell(rule: Listed): string {
  const last = rule.sources.at(-1);
  if (!last) return "";
  const more = rule.sources.length > 1 ? ` (+${rule.sources.length - 1})` : "";
  return `${last.kind} by ${last.author}${last.url ? ` ${last.url}` : ""}${more}`;
}

function table(rules: readonly Listed[]): string {
  if (rules.length === 0) return "_None._";
  const rows = rules.map(
    (r) =>
      `| ${r.id} | ${r.status} | ${cell(r.scope.join(", "), 30)} | ${cell(r.text, 70)} | ${cell(sourceCell(r), 60)} | ${r.seen} | ${r.applied} |`,
  );
  return ["| Id | Status | Scope | Rule | Source | Seen | Applied |", "|---|---|---|---|---|---:|---:|", ...rows].join("\n");
}

/** Applied counts of this repository, summed over the paths and forge names its flows count under. */
async function repoApplied(ctx: CommandContext): Promise<Record<string, number>> {
  const sum: Record<string, number> = {};
  for (const key of await repoPaths(ctx)) {
    for (const [id, n] of Object.entries(await appliedCounts(key, ctx.runtime.env))) sum[id] = (sum[id] ?? 0) + n;
  }
  return sum;
}

const list: Verb = {
  path: ["list"],
  args: "[--json]",
  summary: "The repository's rules and your own, apart: id, status, scope, source, how often each was applied",
  options: { json: { type: "boolean" } },
  async run({ values }, ctx) {
    const root = await findRepoRoot(cwdOf(ctx));
    const [repo, user, applied, mine] = await Promise.all([
      root ? readRules(root) : Promise.resolve({ rules: [], problems: [] }),
      readUserRules(ctx.runtime.env),
      root ? repoApplied(ctx) : Promise.resolve({}),
      appliedCounts(USER_KEY, ctx.runtime.env),
    ]);
    const result = {
      repository: root ? { file: rulesPath(root), rules: repo.rules.map((r) => listed(r, applied)), problems: repo.problems } : undefined,
      user: { file: userRulesPath(ctx.runtime.env), rules: user.rules.map((r) => listed(r, mine)), problems: user.problems },
    };
    if (values.json === true) return JSON.stringify(result, null, 2);
    const lines: string[] = [];
    if (result.repository) {
      lines.push(`**Repository rules** (${result.repository.file}):`, "", table(result.repository.rules));
      for (const problem of result.repository.problems) lines.push(`Problem: ${problem}`);
    } else lines.push("Not inside a git repository: no repository rules.");
    lines.push("", `**Your rules** (${result.user.file}):`, "", table(result.user.rules));
    for (const problem of result.user.problems) lines.push(`Problem: ${problem}`);
    const pending = [...(result.repository?.rules ?? []), ...result.user.rules].filter((r) => r.status === "pending");
    if (pending.length > 0)
      lines.push("", `Pending rules are not applied until accepted: /otto-rules accept ${pending[0]?.id} (or reject).`);
    return { title: `otto rules: ${(result.repository?.rules.length ?? 0) + result.user.rules.length} rules`, output: lines.join("\n") };
  },
};

/** /otto-rules: the team's rules otto applies (docs/rules.md). */
export function rulesCommand(runtime: Runtime): ToolDefinition {
  return defineCommand(
    {
      name: "otto-rules",
      summary: "the team's rules otto applies when it writes or reviews code",
      verbs: [add, statusVerb("accept", "accepted"), statusVerb("reject", "rejected"), list, learnVerb],
    },
    runtime,
  );
}
