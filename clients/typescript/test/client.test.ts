import { createServer } from "node:net";
import { describe, expect, inject, it } from "vitest";
import {
  MemstreamAPIError,
  MemstreamClient,
  MemstreamUnreachable,
  serverUrl,
} from "../src/index.js";
import { client, key, someone, url } from "./helpers.js";

describe("the client against a real memstream up", () => {
  it("publishes, finds, explains, corrects and forgets", async () => {
    const memory = client();
    const user = someone("ana");
    const ids = await memory.publish([
      { user_id: user, session_id: "s1", role: "user", speaker: "Ana",
        content: "I moved to Porto last week with my cat Miso." },
      { user_id: user, session_id: "s1", role: "user", speaker: "Ana",
        content: "Miso only eats tuna." },
    ]);
    expect(ids).toHaveLength(2);
    expect(memory.written(user)).toMatch(/^w1\./);
    // the next read of the user waits for the client's write (and, asked, its vectors)
    const found = (await memory.search(user, "where does Ana live", { k: 10, wait: "vectors" }))
      .results;
    expect(memory.written(user)).toBeUndefined();
    const porto = found.find((hit) => hit.content.includes("Porto"))!;
    expect(porto.occurred_at).toBeTruthy();
    expect(porto.recorded_at).toBeTruthy(); // when memstream recorded it, besides when it happened
    expect(porto.source_event_ids).toContain(ids[0]);

    const block = await memory.context(user, "what does Miso eat?");
    expect(block.context).toContain("tuna");
    expect(block.tokens).toBeGreaterThan(0);

    const stored = await memory.memory(user, porto.memory_id);
    expect(stored.content).toBe(porto.content);
    const why = await memory.explain(user, porto.memory_id);
    expect(JSON.stringify(why)).toContain("I moved to Porto"); // the turn it came from

    const fact = await memory.remember(user, "Ana's cat Miso is eight years old.");
    expect((await memory.memory(user, fact)).content).toContain("eight");
    const corrected = await memory.correct(user, fact, "Ana's cat Miso is nine years old.");
    const chain = await memory.history(user, corrected);
    expect(chain.map((m) => m.memory_id)).toEqual([fact, corrected]);
    await memory.confirm(user, corrected);
    await memory.forget(user, porto.memory_id);
    const page = await memory.list(user, { include_hidden: false, limit: 50 });
    expect(page.memories.map((m) => m.memory_id)).not.toContain(porto.memory_id); // forgotten
    const all = [];
    for await (const m of memory.allMemories(user, { limit: 1, include_hidden: true })) all.push(m);
    expect(all.length).toBeGreaterThanOrEqual(page.memories.length);
    expect(all.map((m) => m.memory_id)).toContain(porto.memory_id);

    const miso = await memory.entity(user, "Miso");
    expect(JSON.stringify(miso)).toContain("Miso");
    const stats = await memory.stats(user);
    expect(JSON.stringify(stats)).toMatch(/\d/);
    expect((await memory.users()).map((u) => u.user_id)).toContain(user);
  });

  it("keeps a slot's earlier value said again: Lisbon, Berlin, Lisbon ends Lisbon", async () => {
    const memory = client();
    const user = someone("slot");
    const slot = { subject: "Ana", attribute: "home", exclusive: true };
    const said = ["Ana lives in Lisbon", "Ana lives in Berlin", "Ana lives in Lisbon"];
    const ids = [];
    for (const content of said) ids.push(await memory.remember(user, content, slot));
    expect(new Set(ids).size).toBe(3); // each call its own memory, the repeat too
    // each put's token is the client's: the list waits for all three, no polling
    const standing = (await memory.list(user, { kind: "fact", limit: 10 })).memories;
    expect(standing.map((m) => m.content)).toEqual(["Ana lives in Lisbon"]);
    expect(standing[0]!.memory_id).toBe(ids[2]);
  });

  it("sees each of its writes in the very next read, with no polling", async () => {
    const memory = client();
    const user = someone("ryw");
    for (let i = 0; i < 10; i++) {
      const word = `zorblat${i}q`;
      await memory.publish({ user_id: user, session_id: "s1", role: "user",
                             content: `I saw a ${word} today` });
      const hits = (await memory.search(user, word, { k: 3 })).results;
      expect(hits[0]?.content).toContain(word);
      const id = await memory.remember(user, `Ana's gate code is ${7000 + i}`);
      expect((await memory.memory(user, id)).content).toContain(String(7000 + i));
    }
    const fresh = await memory.freshness(user);
    expect(fresh.position).toMatch(/^w1\./);
    // a token given by hand, from another client's write, is waited for as well
    const other = client({ readYourWrites: false });
    await other.publish({ user_id: user, session_id: "s2", role: "user",
                          content: "The quokka bit me" });
    const after = other.lastToken!;
    const bitten = await other.search(user, "quokka", { after_write: after });
    expect(bitten.results[0]?.content).toContain("quokka");
    // every answer says how fresh it is: here, at least as fresh as the write
    expect(bitten.freshness?.position).toMatch(/^w1\./);
    const block = await other.context(user, "what bit me?", { after_write: after });
    expect(block.freshness?.position).toMatch(/^w1\./);
    const page = await other.list(user, { after_write: after });
    expect(page.freshness?.position).toMatch(/^w1\./);
  });

  it("asks again with the same event ids, so a retried publish stores one memory", async () => {
    const memory = client();
    const user = someone("bo");
    const event = { user_id: user, session_id: "s1", role: "user" as const,
                    content: "My locker code is 4417." };
    const first = await memory.publish(event);
    const again = await memory.publish({ ...event, occurred_at: undefined });
    // stamped here with a new time: a new event; the same object sent twice is one
    expect(again[0]).not.toBe(first[0]);
    const stamped = { ...event, occurred_at: new Date().toISOString() };
    const [one] = await memory.publish(stamped);
    const [two] = await memory.publish(stamped);
    expect(one).toBe(two);
  });

  it("names what was wrong in a refused request", async () => {
    const memory = client();
    const refused = await memory
      .publish({ user_id: "ts:has space", session_id: "s", role: "user", content: "x" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MemstreamAPIError);
    expect((refused as MemstreamAPIError).status).toBe(422);
    expect((refused as Error).message).toMatch(/user_id/);
    const missing = await memory.memory("ts:nobody-here", "ep-00000000").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MemstreamAPIError);
    expect((missing as MemstreamAPIError).status).toBe(404);
  });

  it("is refused without a key, by name", async () => {
    const keyless = new MemstreamClient({ url: url(), apiKey: "" });
    const refused = await keyless.search(someone("k"), "x").catch((e: unknown) => e);
    expect((refused as MemstreamAPIError).status).toBe(401);
  });

  it("says which address it could not reach", async () => {
    const port = await new Promise<number>((done) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => done(typeof address === "object" && address ? address.port : 0));
      });
    });
    const down = new MemstreamClient({ url: `http://127.0.0.1:${port}` });
    const error = await down.search("ana", "x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemstreamUnreachable);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).toContain("connection refused");
  });

  it("finds the server of a data folder as the command line does", async () => {
    const data = inject("memstreamData");
    expect(await serverUrl(undefined, { MEMSTREAM_DATA: data })).toBe(url());
    expect(await serverUrl(undefined, { MEMSTREAM_API_URL: "http://h:1/" })).toBe("http://h:1");
    expect(await serverUrl("http://given:2", { MEMSTREAM_API_URL: "http://h:1" })).toBe(
      "http://given:2",
    );
    expect(await serverUrl(undefined, { MEMSTREAM_DATA: "/nonexistent" })).toBe(
      "http://127.0.0.1:8787",
    );
    const found = new MemstreamClient({ apiKey: key() });
    process.env.MEMSTREAM_DATA = data;
    try {
      expect(await found.url()).toBe(url());
    } finally {
      delete process.env.MEMSTREAM_DATA;
    }
  });

  it("reads documents in, follows them to indexed and removes them", async () => {
    const memory = client();
    const user = someone("doc");
    const sent = await memory.addDocument(
      user,
      { data: new TextEncoder().encode("# Lease\n\n## Renewal\n\nThe lease renews in May.\n"),
        filename: "lease.md" },
      { wait: 30, tags: ["home"] },
    );
    expect(JSON.stringify(sent)).toContain("indexed");
    const documentId = (sent.document as { document_id: string }).document_id;
    const listed = await memory.documents(user);
    expect(listed.map((d) => d.document_id)).toContain(documentId);
    const text = await memory.addDocument(
      user, { text: "The boiler was serviced in June." },
      { document_id: "boiler", title: "Boiler", wait: 30 },
    );
    expect(JSON.stringify(text)).toContain("indexed");
    const removed = await memory.removeDocument(user, documentId, 30);
    expect(JSON.stringify(removed)).toMatch(/removed|deleted/);
  });

  it("exports a user and manages keys", async () => {
    const memory = client();
    const user = someone("ex");
    await memory.publish({ user_id: user, session_id: "s", role: "user", content: "Hello there." });
    await memory.freshness(user); // once the client's write is applied
    const stream = await memory.export(user, "json");
    const text = await new Response(stream).text();
    expect(text).toContain("Hello there.");
    const created = await memory.createKey("read", "dashboard");
    expect(created.key).toBeTruthy();
    expect((await memory.keys()).map((k) => k.key_id)).toContain(created.key_id);
    await memory.revokeKey(created.key_id as string);
    const keyed = new MemstreamClient({ url: url(), apiKey: created.key as string });
    const refused = await keyed.search(user, "hello").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MemstreamAPIError);
    expect((refused as MemstreamAPIError).status).toBe(401);
  });
});
