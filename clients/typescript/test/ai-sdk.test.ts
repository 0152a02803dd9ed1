import { generateText, stepCountIs, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { describe, expect, it } from "vitest";
import { MEMORY_PREAMBLE, memstreamMemory } from "../src/ai-sdk.js";
import { MemstreamClient } from "../src/index.js";
import { client, someone } from "./helpers.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const answer = (text: string) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage,
  warnings: [],
});
const toolCall = (toolName: string, input: object) => ({
  content: [
    { type: "tool-call" as const, toolCallId: "c1", toolName, input: JSON.stringify(input) },
  ],
  finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
  usage,
  warnings: [],
});

async function seeded(name: string) {
  const memory = client();
  const user = someone(name);
  await memory.publish({ user_id: user, session_id: "old", role: "user", speaker: "Ana",
                         content: "My sister Rita lives in Coimbra and teaches piano." });
  // the client's next read of the user waits for that write, and for its vector
  await memory.freshness(user, { wait: "vectors" });
  return { memory, user };
}

describe("Vercel AI SDK memory, with the SDK's test model against a real server", () => {
  it("puts the context block into the user's turn and stores the turn once", async () => {
    const { memory, user } = await seeded("sdk");
    const mem = memstreamMemory({ client: memory, userId: user, sessionId: "chat-1",
                                  userName: "Ana" });
    const mock = new MockLanguageModelV4({ doGenerate: answer("Rita teaches piano.") });
    const model = wrapLanguageModel({ model: mock, middleware: mem.middleware });
    const result = await generateText({
      model,
      system: "You are a helpful assistant.",
      prompt: "What does my sister Rita do?",
      onFinish: mem.onFinish,
    });
    expect(result.text).toBe("Rita teaches piano.");
    const prompt = mock.doGenerateCalls[0]!.prompt;
    const system = prompt.filter((m) => m.role === "system").map((m) => m.content).join();
    expect(system).toBe("You are a helpful assistant."); // memory is not an instruction
    const turn = prompt.at(-1)!;
    expect(turn.role).toBe("user");
    const parts = turn.content as { type: string; text: string }[];
    expect(parts[0]!.text.startsWith(MEMORY_PREAMBLE)).toBe(true);
    expect(parts[0]!.text).toContain("Coimbra");
    expect(parts.at(-1)!.text).toBe("What does my sister Rita do?");
    expect(mem.lastContext()).toContain("Coimbra");

    await mem.onFinish({ text: "again" }); // the SDK's or a caller's second call: nothing
    // read after the client's own write of the turn: no polling
    const stored = (await memory.list(user, { session_id: "chat-1", order: "oldest" })).memories;
    expect(stored.map((m) => [m.speaker, m.content])).toEqual([
      ["Ana", "What does my sister Rita do?"],
      ["assistant", "Rita teaches piano."],
    ]);
  });

  it("asks about a message longer than search takes by its beginning", async () => {
    const { memory, user } = await seeded("long");
    const mem = memstreamMemory({ client: memory, userId: user, sessionId: "chat-l" });
    const mock = new MockLanguageModelV4({ doGenerate: answer("Piano.") });
    const long = "What does my sister Rita teach? " + "Pasted notes. ".repeat(400);
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware: mem.middleware }),
      prompt: long,
    });
    const parts = mock.doGenerateCalls[0]!.prompt.at(-1)!.content as { text: string }[];
    expect(parts[0]!.text).toContain("Coimbra");
    expect(parts.at(-1)!.text).toBe(long); // the message itself, whole
  });

  it("gives a streamed call the block too, and stores the streamed answer once", async () => {
    const { memory, user } = await seeded("stream");
    const mem = memstreamMemory({ client: memory, userId: user, sessionId: "chat-s" });
    const mock = new MockLanguageModelV4({
      doStream: {
        stream: convertArrayToReadableStream([
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Rita lives " },
          { type: "text-delta", id: "t", delta: "in Coimbra." },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
        ]),
      },
    });
    let stored$: Promise<void> = Promise.resolve();
    const result = streamText({
      model: wrapLanguageModel({ model: mock, middleware: mem.middleware }),
      prompt: "Where does Rita live?",
      onFinish: (event) => {
        stored$ = mem.onFinish(event); // the SDK does not wait for it: the test does
        return stored$;
      },
    });
    expect(await result.text).toBe("Rita lives in Coimbra.");
    await result.consumeStream();
    await stored$;
    const turn = mock.doStreamCalls[0]!.prompt.at(-1)!.content as { text: string }[];
    expect(turn[0]!.text.startsWith(MEMORY_PREAMBLE)).toBe(true);
    expect(turn[0]!.text).toContain("Coimbra");
    const stored = (await memory.list(user, { session_id: "chat-s", order: "oldest" })).memories;
    expect(stored.map((m) => m.content)).toEqual([
      "Where does Rita live?",
      "Rita lives in Coimbra.",
    ]);
  });

  it("lets the model search, remember and correct through tools", async () => {
    const { user } = await seeded("tools");
    const asked: string[] = [];
    const memory = client({
      fetch: (input: URL, init?: RequestInit) => {
        asked.push(new URL(input).pathname);
        return fetch(input, init);
      },
    });
    const mem = memstreamMemory({ client: memory, userId: user, sessionId: "chat-2" });
    const searching = new MockLanguageModelV4({
      doGenerate: [toolCall("searchMemory", { query: "where does Rita live" }), answer("Coimbra.")],
    });
    const searched = await generateText({
      model: wrapLanguageModel({ model: searching, middleware: mem.middleware }),
      prompt: "Where does Rita live?",
      tools: mem.tools,
      stopWhen: stepCountIs(3),
      onFinish: mem.onFinish,
    });
    const output = searched.steps[0]!.toolResults[0]!.output as {
      memories: { memory_id: string; content: string }[];
    };
    expect(output.memories[0]!.content).toContain("Coimbra");
    // the tool loop's second step reused the turn's block: one context fetch per turn
    expect(searching.doGenerateCalls).toHaveLength(2);
    expect(asked.filter((path) => path === "/v1/context")).toHaveLength(1);
    expect(searching.doGenerateCalls[1]!.prompt.at(0)!.content).toEqual(
      searching.doGenerateCalls[0]!.prompt.at(0)!.content,
    );

    const remembering = new MockLanguageModelV4({
      doGenerate: [toolCall("rememberFact", { fact: "Rita moved to Braga." }), answer("Noted.")],
    });
    const remembered = await generateText({
      model: remembering,
      prompt: "Rita moved to Braga.",
      tools: mem.tools,
      stopWhen: stepCountIs(3),
    });
    const { memory_id } = remembered.steps[0]!.toolResults[0]!.output as { memory_id: string };
    expect((await memory.memory(user, memory_id)).content).toBe("Rita moved to Braga.");
    const correcting = new MockLanguageModelV4({
      doGenerate: [
        toolCall("correctFact", { memory_id, correction: "Rita moved to Porto." }),
        answer("Corrected."),
      ],
    });
    const corrected = await generateText({
      model: correcting,
      prompt: "No, Rita moved to Porto.",
      tools: mem.tools,
      stopWhen: stepCountIs(3),
    });
    const replaced = corrected.steps[0]!.toolResults[0]!.output as { memory_id: string };
    const chain = await memory.history(user, replaced.memory_id);
    expect(chain.map((m) => m.content)).toEqual(["Rita moved to Braga.", "Rita moved to Porto."]);
  });

  it("goes on without memory, with one warning, when memstream is down", async () => {
    const warnings: string[] = [];
    const down = new MemstreamClient({ url: "http://127.0.0.1:9", timeoutMs: 1000 });
    const mem = memstreamMemory({ client: down, userId: someone("down"), sessionId: "s",
                                  warn: (m) => warnings.push(m) });
    const mock = new MockLanguageModelV4({
      doGenerate: [toolCall("searchMemory", { query: "x" }), answer("Fine."), answer("Still.")],
    });
    const model = wrapLanguageModel({ model: mock, middleware: mem.middleware });
    const first = await generateText({ model, prompt: "Hello?", tools: mem.tools,
                                       stopWhen: stepCountIs(3), onFinish: mem.onFinish });
    const second = await generateText({ model, prompt: "Again?", onFinish: mem.onFinish });
    expect([first.text, second.text]).toEqual(["Fine.", "Still."]);
    const tool = first.steps[0]!.toolResults[0]!.output as { error: string };
    expect(tool.error).toMatch(/memory is unavailable: cannot reach memstream/);
    const user = mock.doGenerateCalls[0]!.prompt.at(-1)!.content as { text: string }[];
    expect(user.map((p) => p.text)).toEqual(["Hello?"]); // passed through untouched
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^memstream: .*going on without memory/);
  });
});
