// What the tests share: the server's address, and waiting for the worker to apply.
import { inject } from "vitest";
import { MemstreamClient, type SearchResult } from "../src/index.js";

export const url = () => inject("memstreamUrl");
export const key = () => inject("memstreamKey");
/** A client with the tenant's admin key (the server asks every request for a key). */
export const client = (options = {}) =>
  new MemstreamClient({ url: url(), apiKey: key(), ...options });

/** A user id of the test tenant no other test uses. */
export const someone = (name: string) =>
  `ts:${name}-${Math.random().toString(36).slice(2, 10)}`;

/** Search until `found` holds of the results (the worker applies events shortly after
 * the API accepts them). */
export async function searchUntil(
  memory: MemstreamClient,
  userId: string,
  query: string,
  found: (results: SearchResult[]) => boolean,
  seconds = 30,
): Promise<SearchResult[]> {
  const deadline = Date.now() + seconds * 1000;
  let results: SearchResult[] = [];
  while (Date.now() < deadline) {
    results = (await memory.search(userId, query, { k: 10 })).results;
    if (found(results)) return results;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not found in ${seconds} s: ${JSON.stringify(results)}`);
}

/** Call `ask` until it resolves (a memory just accepted is applied shortly after). */
export async function until<T>(ask: () => Promise<T>, seconds = 30): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
