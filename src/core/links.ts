/**
 * Where the project lives. Messages point to documentation here, not to `docs/…` paths: an
 * installed package has no docs folder.
 */
export const REPO_URL = "https://github.com/opencode-otto/opencode-otto";

/** The JSON Schema of otto.jsonc, as published with the package (`exports["./otto.schema.json"]`). */
export const SCHEMA_URL = "https://unpkg.com/opencode-otto/otto.schema.json";

/** A page of docs/ on GitHub, e.g. docsUrl("configuration.md"). */
export function docsUrl(page: string): string {
  return `${REPO_URL}/blob/main/docs/${page}`;
}
