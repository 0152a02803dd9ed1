import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { schemaSource } from "../scripts/schema.mjs";
import { url } from "./helpers.js";

it("src/schema.ts holds the types of the API the server describes", async () => {
  const document = await (await fetch(`${url()}/openapi.json`)).json();
  const committed = readFileSync(join(import.meta.dirname, "..", "src", "schema.ts"), "utf8");
  expect(committed, "the API changed: run `npm run generate` in clients/typescript").toBe(
    await schemaSource(document),
  );
});
