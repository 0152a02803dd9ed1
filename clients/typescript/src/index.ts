// The memstream client: `new MemstreamClient()`, its errors, and the API's types.
export { DEFAULT_URL, serverUrl } from "./address.js";
export * from "./client.js";
export { MemstreamAPIError, MemstreamUnreachable } from "./errors.js";
export type { components, operations, paths } from "./schema.js";
