// The Vercel AI SDK's turns with and without memstream's memory, timed (run by
// bench/integrations.py as `node --input-type=module` in clients/typescript, where
// @memstream/client is the built package; BENCH_URL, BENCH_USER and BENCH_QUESTIONS
// say what to ask). The model is the SDK's test model, answering at once: what a turn takes
// beyond it is memory's. Prints one JSON line: the milliseconds of each turn, both ways.
import { readFileSync } from "node:fs";
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { MemstreamClient } from "@memstream/client";
import { memstreamMemory } from "@memstream/client/ai-sdk";

const { BENCH_URL: url, BENCH_USER: user, BENCH_QUESTIONS: questionsFile } = process.env;
const questions = JSON.parse(readFileSync(questionsFile, "utf8"));
const answer = {
  content: [{ type: "text", text: "An answer." }],
  finishReason: { unified: "stop", raw: "stop" },
  usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
  warnings: [],
};
const model = new MockLanguageModelV4({ doGenerate: async () => answer });
const client = new MemstreamClient({ url });
const times = { plain: [], memory: [], search: [] };
for (const [i, question] of questions.entries()) {
  let started = performance.now();
  await generateText({ model, prompt: question });
  times.plain.push(performance.now() - started);
  const memory = memstreamMemory({ client, userId: user, sessionId: `ai-sdk-${i}` });
  started = performance.now();
  await generateText({
    model: wrapLanguageModel({ model, middleware: memory.middleware }),
    prompt: question,
    tools: memory.tools,
    onFinish: memory.onFinish,
  });
  times.memory.push(performance.now() - started);
  started = performance.now();
  await client.search(user, question, { k: 5 });
  times.search.push(performance.now() - started);
}
console.log(JSON.stringify(times));
