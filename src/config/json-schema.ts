import { z } from "zod";
import { ConfigFile } from "./schema.ts";

/**
 * The JSON Schema of an otto.jsonc file as written (the input side: defaults shown as
 * `default`, nothing required), for editors. `npm run schema` writes it to otto.schema.json.
 */
export function buildJsonSchema(): Record<string, unknown> {
  // Draft 7: the newest draft every common editor's JSON language service fully understands.
  const schema = z.toJSONSchema(ConfigFile, { io: "input", target: "draft-7" });
  return { ...schema, title: "otto.jsonc" };
}

/** The exact text of otto.schema.json. */
export function renderJsonSchema(): string {
  return `${JSON.stringify(buildJsonSchema(), null, 2)}\n`;
}
