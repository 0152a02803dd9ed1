export function schemaSource(document: unknown): Promise<string>;
