import type { PrContext } from "../context/context.ts";

/**
 * What a newcomer should know when the watcher starts: it works in the background, with no
 * session whose model a role could fall back to, and polls only the PRs otto tracks.
 */
export async function startNotes(ctx: PrContext): Promise<string[]> {
  const notes: string[] = [];
  const { primary, fix } = ctx.loaded.config.models;
  if (!primary && !fix)
    notes.push(
      "Warning: models.primary is not set (nor models.fix): the watcher runs in the background, with no session whose model it could use, so a red PR or a reviewer's comment will fail there. Set it: /otto-config set models.primary <provider/model> (`opencode models` lists them).",
    );
  const { docs } = await ctx.store.list();
  if (docs.length === 0)
    notes.push("Warning: no PR is tracked, so the watcher has nothing to poll yet. Track one: /otto-pr add <url>, or /otto-pr create.");
  return notes;
}
