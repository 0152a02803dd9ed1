// What the tests share: the server's address, its key, a client, a fresh user id.
import { inject } from "vitest";
import { MemstreamClient } from "../src/index.js";

export const url = () => inject("memstreamUrl");
export const key = () => inject("memstreamKey");
/** A client with the tenant's admin key (the server asks every request for a key). */
export const client = (options = {}) =>
  new MemstreamClient({ url: url(), apiKey: key(), ...options });

/** A user id of the test tenant no other test uses. */
export const someone = (name: string) =>
  `ts:${name}-${Math.random().toString(36).slice(2, 10)}`;
