// Writes src/models.ts from the server's OpenAPI document (server/openapi.json): an interface
// per schema (required properties plain, the others optional) and SCHEMAS, each schema's
// properties, required ones and nested schemas, which the client checks requests and (in
// strict mode) answers against. test/api.test.ts fails when the file is not what this writes.
//
//   node gen-models.mjs           # rewrite src/models.ts
//   node gen-models.mjs --check   # exit 1 when it differs
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const docPath = join(here, "..", "..", "server", "openapi.json");
const outPath = join(here, "src", "models.ts");

const scalar = { string: "string", integer: "number", number: "number", boolean: "boolean", object: "Record<string, unknown>" };
const refName = (ref) => ref.slice(ref.lastIndexOf("/") + 1);

function tsType(p) {
  if (p.$ref) return refName(p.$ref);
  if (p.type === "array") return `${tsType(p.items ?? {})}[]`;
  return scalar[p.type] ?? "unknown";
}

function nested(p) {
  if (p.$ref) return refName(p.$ref);
  if (p.type === "array" && p.items?.$ref) return refName(p.items.$ref);
  return null;
}

export function render(doc) {
  const schemas = doc.components.schemas;
  const names = Object.keys(schemas).sort();
  const out = ["// The API's schemas. Written by gen-models.mjs from server/openapi.json: do not edit.", ""];
  for (const name of names) {
    const s = schemas[name];
    const req = new Set(s.required ?? []);
    out.push(`export interface ${name} {`);
    for (const prop of Object.keys(s.properties ?? {}).sort()) {
      out.push(`  ${JSON.stringify(prop)}${req.has(prop) ? "" : "?"}: ${tsType(s.properties[prop])};`);
    }
    out.push("}", "");
  }
  out.push("/** Each schema's properties (with the schema a property holds, or null), and its required ones. */");
  out.push("export const SCHEMAS: Record<string, { properties: Record<string, string | null>; required: string[] }> = {");
  for (const name of names) {
    const s = schemas[name];
    const props = Object.keys(s.properties ?? {}).sort().map((p) => `${JSON.stringify(p)}: ${JSON.stringify(nested(s.properties[p]))}`);
    out.push(`  ${name}: { properties: { ${props.join(", ")} }, required: ${JSON.stringify([...(s.required ?? [])].sort())} },`);
  }
  out.push("};", "");
  return out.join("\n");
}

const text = render(JSON.parse(readFileSync(docPath, "utf8")));
if (process.argv.includes("--check")) {
  if (readFileSync(outPath, "utf8") !== text) {
    console.error(`${outPath} is not what gen-models.mjs writes from ${docPath}: run node ${fileURLToPath(import.meta.url)}`);
    process.exit(1);
  }
} else {
  writeFileSync(outPath, text);
}
