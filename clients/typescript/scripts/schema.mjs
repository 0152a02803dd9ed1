// The TypeScript types of an OpenAPI document, as src/schema.ts holds them.
import openapiTS, { astToString } from "openapi-typescript";

const HEADER = `// The memstream HTTP API's types, generated from its OpenAPI document by
// openapi-typescript (npm run generate). Do not edit: the test fails when they drift.
`;

export async function schemaSource(document) {
  const ast = await openapiTS(document, { alphabetize: true, defaultNonNullable: false });
  return HEADER + astToString(ast);
}
