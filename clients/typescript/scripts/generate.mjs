// Regenerate src/schema.ts from the API's OpenAPI document: the one a server at the
// URL given answers, else the one this checkout's Python package prints.
//   npm run generate [-- http://127.0.0.1:8787]
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { schemaSource } from "./schema.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const url = process.argv[2];

async function openapiDocument() {
  if (url) return (await fetch(`${url.replace(/\/$/, "")}/openapi.json`)).json();
  const python = process.env.MEMSTREAM_PYTHON ?? join(root, ".venv", "bin", "python");
  const printed = execFileSync(python, ["-m", "memstream.http.openapi_document"], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(printed.toString("utf8"));
}

const target = join(here, "..", "src", "schema.ts");
writeFileSync(target, await schemaSource(await openapiDocument()));
console.log(`wrote ${target}`);
