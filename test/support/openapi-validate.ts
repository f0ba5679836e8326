/*
 * A small validator for OpenAPI 3.0 schemas (the subset GitHub's description uses: $ref,
 * nullable, type, properties, required, items, enum, allOf/anyOf/oneOf, additionalProperties).
 * Strict about unknown properties, so a fake that invents or misspells a field fails too.
 */

type Schema = {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  additionalProperties?: boolean | Schema;
};

export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
}

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  let current = schema;
  while (current.$ref) {
    const name = current.$ref.replace("#/components/schemas/", "");
    const next = doc.components.schemas[name];
    if (!next) throw new Error(`unknown $ref ${current.$ref}`);
    current = next;
  }
  return current;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

export function validate(doc: OpenApiDocument, raw: Schema, value: unknown, at = "$"): string[] {
  const schema = resolve(doc, raw);
  if (value === null) {
    if (schema.nullable) return [];
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches?.some((b) => resolve(doc, b).nullable)) return [];
    if (schema.allOf?.some((b) => resolve(doc, b).nullable)) return [];
    return schema.type || schema.properties || branches || schema.allOf ? [`${at}: null is not allowed`] : [];
  }
  const errors: string[] = [];
  if (schema.allOf)
    for (const part of schema.allOf) errors.push(...validate(doc, { ...resolve(doc, part), additionalProperties: true }, value, at));
  for (const branches of [schema.anyOf, schema.oneOf]) {
    if (!branches) continue;
    const results = branches.map((b) => validate(doc, b, value, at));
    if (!results.some((r) => r.length === 0))
      errors.push(`${at}: matches none of ${branches.length} alternatives (${results.map((r) => r[0]).join(" | ")})`);
  }
  if (schema.enum && !schema.enum.includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} not in enum ${JSON.stringify(schema.enum)}`);
  const actual = typeOf(value);
  if (schema.type && schema.type !== actual && !(schema.type === "number" && actual === "integer"))
    return [...errors, `${at}: expected ${schema.type}, found ${actual}`];
  if (actual === "object" && (schema.properties || schema.type === "object")) {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) errors.push(`${at}.${key}: required but missing`);
    for (const [key, item] of Object.entries(object)) {
      const property = schema.properties?.[key];
      if (property) errors.push(...validate(doc, property, item, `${at}.${key}`));
      else if (typeof schema.additionalProperties === "object")
        errors.push(...validate(doc, schema.additionalProperties, item, `${at}.${key}`));
      else if (schema.additionalProperties === undefined && schema.properties && !schema.allOf)
        errors.push(`${at}.${key}: not in the description`);
      else if (schema.additionalProperties === false) errors.push(`${at}.${key}: not allowed`);
    }
  }
  if (actual === "array" && schema.items)
    (value as unknown[]).forEach((item, i) => errors.push(...validate(doc, schema.items as Schema, item, `${at}[${i}]`)));
  return errors;
}

/** The OpenAPI path template that matches a concrete path, e.g. /repos/{owner}/{repo}/pulls/{pull_number}. */
export function matchPath(doc: OpenApiDocument, path: string): string | undefined {
  const templates = Object.keys(doc.paths).filter((t) => t.split("/").length === path.split("/").length);
  // Prefer templates with fewer parameters (literal segments win).
  templates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  return templates.find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
}

export function responseSchema(doc: OpenApiDocument, template: string, method: string, status: number): Schema | undefined {
  const response = doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)];
  return response?.content?.["application/json"]?.schema;
}
