/**
 * Writes otto.schema.json (the JSON Schema of otto.jsonc) from the zod schema in src/config.
 * `npm run schema` after changing the schema; `npm run schema -- --check` fails when the
 * committed file is stale (test/unit/config/json-schema.test.ts checks the same).
 */
import fs from "node:fs";
import path from "node:path";
import { renderJsonSchema } from "../src/config/index.ts";
import { PACKAGE_ROOT } from "../src/core/index.ts";

const file = path.join(PACKAGE_ROOT, "otto.schema.json");
const text = renderJsonSchema();

if (process.argv.includes("--check")) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (current !== text) {
    console.error(`${file} is out of date: run npm run schema`);
    process.exit(1);
  }
  console.log(`${file} is up to date`);
} else {
  fs.writeFileSync(file, text);
  console.log(`Wrote ${file}`);
}
