import type { Config } from "./schema.ts";

/** The model for each role, undefined when not configured. */
export interface ModelRoles {
  primary: string | undefined;
  secondary: string | undefined;
  reviewers: string[] | undefined;
  fix: string | undefined;
}

/**
 * The configured model of each role, exactly as configured: no fallbacks here. The session
 * layer falls back to the invoking session's model, and says so once (runtime.once).
 */
export function modelRoles(config: Pick<Config, "models">): ModelRoles {
  const { primary, secondary, reviewers, fix } = config.models;
  return { primary, secondary, reviewers: reviewers ? [...reviewers] : undefined, fix };
}
