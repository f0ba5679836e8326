import { loadConfig, modelRoles, parseDuration } from "../config/index.ts";
import { OttoError } from "../core/index.ts";
import { checkModels, formatModel, parseModel, readSessionModel, type ModelCheck, type RoleToCheck } from "../session/index.ts";
import type { CommandContext, Verb } from "./command.ts";

/** Every configured role, with unset ones falling back to the invoking session's model. */
async function rolesToCheck(ctx: CommandContext): Promise<{ roles: RoleToCheck[]; notes: string[] }> {
  const { runtime, tool } = ctx;
  const loaded = await loadConfig({ directory: tool.directory, env: runtime.env, runtime });
  const configured = modelRoles(loaded.config);
  const session = await readSessionModel({ client: runtime.client, sessionID: tool.sessionID, directory: tool.directory });
  const roles: RoleToCheck[] = [];
  const notes: string[] = [];
  const add = (role: string, model: string | undefined) => {
    if (model) return roles.push({ role, model: parseModel(model), source: "config" });
    if (!session) {
      notes.push(`models.${role} is not set and the session's model is unknown: skipped.`);
      return;
    }
    notes.push(`models.${role} is not set; checking ${formatModel(session)} (the session's model) instead.`);
    roles.push({ role, model: session, source: "session (fallback)" });
  };
  add("primary", configured.primary);
  add("secondary", configured.secondary);
  (configured.reviewers ?? []).forEach((model, i) => add(`reviewers[${i}]`, model));
  if (configured.fix) add("fix", configured.fix);
  return { roles, notes };
}

function renderChecks(checks: readonly ModelCheck[], notes: readonly string[]): string {
  const rows = checks.map((c) => {
    const status = c.status === "ok" ? (c.attempts && c.attempts > 1 ? `ok (after ${c.attempts} prompts)` : "ok") : `FAILED: ${c.code}`;
    return `| ${c.role} | \`${formatModel(c.model)}\` | ${c.source} | ${status} | ${(c.ms / 1000).toFixed(1)} s |`;
  });
  const failures = checks.filter((c) => c.status === "failed").map((c) => `- **${c.role}**: ${c.detail ?? c.code}`);
  const ok = checks.filter((c) => c.status === "ok").length;
  return [
    `## Model check: ${ok}/${checks.length} ok`,
    "",
    "| role | model | from | result | time |",
    "|---|---|---|---|---|",
    ...rows,
    ...(failures.length ? ["", "### Failures", ...failures] : []),
    ...(notes.length ? ["", ...notes.map((n) => `Note: ${n}`)] : []),
  ].join("\n");
}

export const modelsVerb: Verb = {
  path: ["models"],
  args: "[--timeout <duration>]",
  summary: "Check that every model role answers through OpenCode, from the model that was asked for",
  options: { timeout: { type: "string" } },
  async run({ values }, ctx) {
    const raw = typeof values.timeout === "string" ? values.timeout : "2m";
    const timeoutMs = parseDuration(raw);
    const { roles, notes } = await rolesToCheck(ctx);
    if (roles.length === 0) {
      throw new OttoError(
        "no_models",
        "No model role to check.",
        "Set models.primary, e.g. /otto-config set models.primary anthropic/claude-sonnet-4-5",
      );
    }
    const checks = await checkModels(ctx.runtime.sessions, roles, {
      directory: ctx.tool.directory,
      parentID: ctx.tool.sessionID,
      timeoutMs,
      signal: ctx.tool.abort,
      onProgress: (message) => ctx.progress(message),
    });
    const ok = checks.filter((c) => c.status === "ok").length;
    return { title: `otto: ${ok}/${checks.length} models ok`, output: renderChecks(checks, notes) };
  },
};
