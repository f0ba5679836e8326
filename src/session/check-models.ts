import { z } from "zod";
import { isOttoError, errorText } from "../core/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import { formatModel, type ModelRef } from "./model.ts";
import type { SessionRunner } from "./runner.ts";

export interface RoleToCheck {
  role: string;
  model: ModelRef;
  /** Where the model came from: "config" or "session (fallback)". */
  source: string;
}

export interface ModelCheck extends RoleToCheck {
  status: "ok" | "failed";
  /** Error code when failed (model_mismatch, session_timeout, invalid_envelope, model_error …). */
  code?: string;
  detail?: string;
  ms: number;
  /** Prompts it took to get a valid envelope (1 = first try). */
  attempts?: number;
}

const Pong = z.object({ role: z.string(), ok: z.literal(true) });

/**
 * Asks every role's model for a tiny JSON envelope through a child session with the read-only
 * reviewer agent: proves the provider answers, that OpenCode routed to the requested model, and
 * that the model can follow otto's envelope format. Roles are checked one after another so a
 * slow provider shows up as its own latency.
 */
export async function checkModels(
  runner: SessionRunner,
  roles: readonly RoleToCheck[],
  opts: { directory: string; parentID?: string; timeoutMs: number; signal?: AbortSignal; onProgress?: (msg: string) => void },
): Promise<ModelCheck[]> {
  const results: ModelCheck[] = [];
  for (const [index, role] of roles.entries()) {
    opts.onProgress?.(`checking ${index + 1}/${roles.length}: ${role.role} (${formatModel(role.model)})`);
    const started = Date.now();
    try {
      const prompt = renderPrompt("model-check", { role: role.role, model: formatModel(role.model) });
      const reply = await runner.runChildJson(
        {
          parentID: opts.parentID,
          directory: opts.directory,
          agent: "otto-reviewer",
          model: role.model,
          title: `otto: check ${role.role} model`,
          timeoutMs: opts.timeoutMs,
          signal: opts.signal,
        },
        prompt,
        Pong,
      );
      results.push({ ...role, status: "ok", ms: Date.now() - started, attempts: reply.attempts });
    } catch (error) {
      if (opts.signal?.aborted) throw error;
      results.push({
        ...role,
        status: "failed",
        code: isOttoError(error) ? error.code : "error",
        detail: errorText(error),
        ms: Date.now() - started,
      });
    }
  }
  return results;
}
