// A client of the memstream HTTP API over plain `fetch`: Node 18+, Deno, Bun, edge
// runtimes and browsers.
//
//   const memory = new MemstreamClient();
//   await memory.publish({ user_id: "alice", session_id: "s1", role: "user",
//                          content: "I moved to Porto" });
//   const { results } = await memory.search("alice", "where do I live?");
//
// It finds the server as the Python client does (see address.ts), sends `apiKey` (else
// MEMSTREAM_API_KEY) as a bearer token, stamps a message published without
// `occurred_at` with the time here before sending (so asking again sends the same event,
// which the server stores once), and waits out a 429 or 503's Retry-After `retries`
// times. A refusal is thrown as MemstreamAPIError with the server's explanation; a
// server that cannot be reached, as MemstreamUnreachable naming its address.
//
// Every write answers a write token (where in the log it was put). The client keeps, per
// user, the token of its writes; with `readYourWrites` (the default) each read of that
// user passes it as `after_write`, so the server answers once the write is applied: what
// this client wrote, its next read sees. Any read also takes `after_write` by hand.

import { environment, serverUrl } from "./address.js";
import { MemstreamAPIError, MemstreamUnreachable, unreachableReason } from "./errors.js";
import type { components, operations } from "./schema.js";
import { UnseenWrites } from "./tokens.js";

type Schemas = components["schemas"];
type Query<Op extends keyof operations> = operations[Op]["parameters"]["query"];

export type MessageEvent = Schemas["MessageEvent"];
export type MemoryEvent =
  | Schemas["MessageEvent"]
  | Schemas["SessionEnded"]
  | Schemas["RememberFact"]
  | Schemas["CorrectFact"]
  | Schemas["ConfirmFact"]
  | Schemas["ForgetMemory"];
export type SearchOptions = Omit<Schemas["SearchRequest"], "user_id" | "query">;
export type SearchResponse = Schemas["SearchResponse"];
export type SearchResult = Schemas["SearchResult"];
export type ContextOptions = Omit<Schemas["ContextRequest"], "user_id" | "query">;
export type RememberOptions = Omit<Schemas["RememberRequest"], "user_id" | "content">;
export type ListOptions = Omit<NonNullable<Query<"list_memories">>, "user_id">;
export type KeyRole = Schemas["NewKey"]["role"];

/** A memory as the API shows it: the columns memstream keeps and what happened to it
 * since (an archived one: its index row, its summary as content). */
export type Memory = Schemas["MemoryDocument"];
/** A memory as a page of them shows it. */
export type ListedMemory = Schemas["ListedMemory"];
/** An archived memory's original, read from the cold store (`memory(..., {expand})`). */
export type ExpandedMemory = Schemas["ExpandedMemory"];
/** The memory block for an agent about to answer (`context` is null when nothing
 * relevant is found), its sections, and the candidates left out and why. */
export type ContextResponse = Schemas["ContextAnswer"];
/** How fresh an answer is: the position of the user's partitions of the log it
 * reflects (a write token), the accepted writes there not applied yet, and the user's
 * memories still waiting for their vector (found by their words only). */
export type Freshness = Schemas["Freshness"];
export type FreshnessAnswer = Schemas["FreshnessAnswer"];
export type ErasureAnswer = Schemas["ErasureAnswer"];
export type ErasureReceipt = Schemas["ErasureReceipt"];
export type MemoryPage = Schemas["MemoryPage"];
export type Explanation = Schemas["Explanation"];
export type WeakMemories = Schemas["WeakMemories"];
export type EntityProfile = Schemas["EntityProfile"];
export type DocumentStatus = Schemas["DocumentStatus"];
export type DocumentSubmitted = Schemas["DocumentSubmitted"];
export type DocumentRemoval = Schemas["DocumentRemoval"];
export type UserHeld = Schemas["UserHeld"];
export type ServedRecord = Schemas["ServedRecord"];
export type ServedAnswer = Schemas["ServedAnswer"];
export type Stats = Schemas["Stats"];
export type ApiKey = Schemas["ApiKeyAnswer"];
export type NewApiKey = Schemas["NewApiKey"];
export type Liveness = Schemas["Liveness"];

export interface DocumentOptions {
  title?: string;
  document_id?: string;
  project_id?: string;
  tags?: string[];
  media_type?: string;
  /** Seconds to wait for the document to be indexed (or fail). */
  wait?: number;
}

export interface ClientOptions {
  /** The API's address; else MEMSTREAM_API_URL, the data folder's server, the default. */
  url?: string;
  /** Sent as `Authorization: Bearer`; else MEMSTREAM_API_KEY. */
  apiKey?: string;
  /** Milliseconds a call may take (30 s). */
  timeoutMs?: number;
  /** How many times a 429 or 503 with Retry-After is waited out and asked again (0). */
  retries?: number;
  /** The fetch to call (the global one by default). */
  fetch?: typeof fetch;
  /** Whether each read of a user waits for this client's writes of the user (true). */
  readYourWrites?: boolean;
  /**
   * The agent this client serves, and its session (the `Memstream-Agent` and
   * `Memstream-Session` headers): what it is shown is recorded under them (`served`).
   */
  agent?: string;
  sessionId?: string;
}

/** What every read takes: a write token to wait for, and what to wait for. */
export interface ReadOptions {
  /** A write's `token`: the read answers once the server holds that write. */
  after_write?: string;
  /** With `after_write`: `applied` (default), or `vectors` (the user's vectors too). */
  wait?: "applied" | "vectors";
  /**
   * Memory as it stood at a past moment: an ISO 8601 time (what was recorded by then)
   * or a write token; the answer's `as_of` says which moment it reflects.
   */
  as_of?: string;
}

/** The longest Retry-After waited out, in seconds; a longer one is reported at once. */
export const MAX_RETRY_AFTER = 10;

type Params = Record<string, string | number | boolean | string[] | undefined | null>;

interface Call {
  method: string;
  path: string;
  params?: Params;
  json?: unknown;
  form?: FormData;
  timeoutMs?: number;
}

export class MemstreamClient {
  /** The token of the last write this client made. */
  lastToken?: string;
  private readonly unseen = new UnseenWrites();
  private readonly readYourWrites: boolean;
  private readonly given?: string;
  private resolved?: Promise<string>;
  private readonly apiKey?: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly fetcher: typeof fetch;
  private readonly asking: Record<string, string> = {};

  constructor(options: ClientOptions = {}) {
    this.given = options.url;
    this.apiKey = options.apiKey ?? (environment().MEMSTREAM_API_KEY || undefined);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 0;
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.readYourWrites = options.readYourWrites ?? true;
    if (options.agent) this.asking["memstream-agent"] = options.agent;
    if (options.sessionId) this.asking["memstream-session"] = options.sessionId;
  }

  /** The token of this client's writes of `userId` that no read has seen applied yet. */
  written(userId: string): string | undefined {
    return this.unseen.of(userId);
  }

  /**
   * How fresh reads of `userId` are: `position`, `pending_writes`, `pending_vectors`;
   * after this client's writes of the user (or `after_write`), so it waits for them.
   */
  freshness(userId: string, options: ReadOptions = {}): Promise<FreshnessAnswer> {
    return this.read(userId, {
      method: "GET",
      path: "/v1/freshness",
      params: { user_id: userId, ...(options as Params) },
    });
  }

  private wrote(users: Iterable<string>, answer: { token?: string | null }): void {
    if (typeof answer.token === "string") {
      this.lastToken = answer.token;
      this.unseen.wrote(users, answer.token);
    }
  }

  /** A read of `userId`, after this client's writes of the user unless told otherwise. */
  private async read<T>(userId: string, call: Call): Promise<T> {
    const token = this.readYourWrites ? this.unseen.of(userId) : undefined;
    if (token !== undefined) {
      if (call.json !== undefined) {
        const json = call.json as Record<string, unknown>;
        if (json.after_write == null) call = { ...call, json: { ...json, after_write: token } };
      } else if (call.params?.after_write == null) {
        call = { ...call, params: { ...call.params, after_write: token } };
      }
    }
    const answer = await this.call<T>(call);
    if (token !== undefined) this.unseen.seen(userId, token);
    return answer;
  }

  /** The address this client asks (found once, on first use). */
  url(): Promise<string> {
    this.resolved ??= serverUrl(this.given);
    return this.resolved;
  }

  /** Publish one event or several; resolves to the accepted event ids. */
  async publish(events: MemoryEvent | MemoryEvent[]): Promise<string[]> {
    const now = new Date().toISOString();
    const batch = (Array.isArray(events) ? events : [events]).map((e) => timed(e, now));
    const body = await this.call<{ accepted: string[]; token?: string | null }>({
      method: "POST",
      path: "/v1/events",
      json: batch,
    });
    this.wrote(
      batch.map((e) => String((e as { user_id?: string }).user_id)),
      body,
    );
    return body.accepted;
  }

  /** Search `userId`'s memories (hybrid: full text, vectors, entities). */
  search(userId: string, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    return this.read(userId, {
      method: "POST",
      path: "/v1/search",
      json: { user_id: userId, query, ...options },
    });
  }

  /** The memory block for an agent about to answer `query`. */
  context(userId: string, query: string, options: ContextOptions = {}): Promise<ContextResponse> {
    return this.read(userId, {
      method: "POST",
      path: "/v1/context",
      json: { user_id: userId, query, ...options },
    });
  }

  /** A page of `userId`'s memories, newest first. */
  list(userId: string, options: ListOptions = {}): Promise<MemoryPage> {
    return this.read(userId, {
      method: "GET",
      path: "/v1/memories",
      params: { user_id: userId, ...(options as Params) },
    });
  }

  /** Every memory `list` gives, page after page. */
  async *allMemories(userId: string, options: ListOptions = {}): AsyncGenerator<ListedMemory> {
    let cursor = options.cursor ?? null;
    for (;;) {
      const page = await this.list(userId, { ...options, cursor });
      yield* page.memories;
      cursor = page.next_cursor;
      if (cursor === null) return;
    }
  }

  memory(userId: string, memoryId: string, options: ReadOptions = {}): Promise<Memory> {
    return this.read(userId, {
      method: "GET",
      path: `/v1/memories/${seg(memoryId)}`,
      params: { user_id: userId, ...(options as Params) },
    });
  }

  /** Why a memory exists and how its confidence got where it is. */
  explain(userId: string, memoryId: string, options: ReadOptions = {}): Promise<Explanation> {
    return this.read(userId, {
      method: "GET",
      path: `/v1/memories/${seg(memoryId)}/explain`,
      params: { user_id: userId, ...(options as Params) },
    });
  }

  /** The memories that replaced one another through this one, oldest first. */
  async history(userId: string, memoryId: string, options: ReadOptions = {}): Promise<Memory[]> {
    const body = await this.read<Schemas["MemoryHistory"]>(userId, {
      method: "GET",
      path: `/v1/memories/${seg(memoryId)}/history`,
      params: { user_id: userId, ...(options as Params) },
    });
    return body.history;
  }

  /** Memories whose confidence has fallen low: candidates to confirm or forget. */
  weak(userId: string): Promise<WeakMemories> {
    return this.call({ method: "GET", path: "/v1/memories/weak", params: { user_id: userId } });
  }

  /** Store a memory stated by the user or an agent; resolves to its id. */
  async remember(userId: string, content: string, options: RememberOptions = {}): Promise<string> {
    const body = await this.call<Schemas["MemoryCommandAccepted"]>({
      method: "POST",
      path: "/v1/memories",
      json: { user_id: userId, content, ...options },
    });
    this.wrote([userId], body);
    return body.memory_id;
  }

  /** Replace a memory with corrected content; resolves to the new memory's id. */
  async correct(userId: string, memoryId: string, content: string): Promise<string> {
    const body = await this.call<Schemas["CorrectionAccepted"]>({
      method: "POST",
      path: `/v1/memories/${seg(memoryId)}/correct`,
      json: { user_id: userId, content },
    });
    this.wrote([userId], body);
    return body.memory_id;
  }

  async confirm(userId: string, memoryId: string): Promise<void> {
    await this.action(userId, memoryId, "confirm");
  }

  async forget(userId: string, memoryId: string): Promise<void> {
    await this.action(userId, memoryId, "forget");
  }

  async restore(userId: string, memoryId: string): Promise<void> {
    await this.action(userId, memoryId, "restore");
  }

  /** An entity's profile, its memories in the project's scope. */
  entity(
    userId: string,
    name: string,
    projectId?: string,
    options: ReadOptions = {},
  ): Promise<EntityProfile> {
    return this.read(userId, {
      method: "GET",
      path: "/v1/entities",
      params: { user_id: userId, name, project_id: projectId, ...(options as Params) },
    });
  }

  /** Submit a document: text (with `document_id`), or bytes named `filename`. */
  async addDocument(
    userId: string,
    document: { text: string } | { data: Blob | Uint8Array; filename: string },
    options: DocumentOptions = {},
  ): Promise<DocumentSubmitted> {
    const { wait, ...fields } = options;
    const timeoutMs = Math.max(60_000, (wait ?? 0) * 1000 + 30_000);
    const params = wait ? { wait } : undefined;
    if ("text" in document) {
      const json = { user_id: userId, text: document.text, ...fields };
      const answer = await this.call<DocumentSubmitted>({
        method: "POST",
        path: "/v1/documents",
        params,
        json,
        timeoutMs,
      });
      this.wrote([userId], answer);
      return answer;
    }
    const form = new FormData();
    form.set("user_id", userId);
    for (const [name, value] of Object.entries(fields)) {
      if (name === "tags" && Array.isArray(value)) form.set("tags", value.join(","));
      else if (value !== undefined && name !== "media_type") form.set(name, String(value));
    }
    const blob =
      document.data instanceof Blob
        ? document.data
        : new Blob([document.data as Uint8Array<ArrayBuffer>], { type: fields.media_type });
    form.set("file", blob, document.filename);
    const answer = await this.call<DocumentSubmitted>({
      method: "POST",
      path: "/v1/documents",
      params,
      form,
      timeoutMs,
    });
    this.wrote([userId], answer);
    return answer;
  }

  /** A document's status (`wait`: seconds to wait for it to be done). */
  document(userId: string, documentId: string, wait = 0): Promise<DocumentStatus> {
    return this.call({
      method: "GET",
      path: `/v1/documents/${seg(documentId)}`,
      params: { user_id: userId, wait: wait || undefined },
      timeoutMs: Math.max(60_000, wait * 1000 + 30_000),
    });
  }

  /** Remove a document: its chunks and facts, of every version. */
  async removeDocument(
    userId: string,
    documentId: string,
    wait = 0,
  ): Promise<DocumentRemoval> {
    const answer = await this.call<DocumentRemoval>({
      method: "DELETE",
      path: `/v1/documents/${seg(documentId)}`,
      params: { user_id: userId, wait: wait || undefined },
      timeoutMs: Math.max(60_000, wait * 1000 + 30_000),
    });
    this.wrote([userId], answer);
    return answer;
  }

  /** The user's documents with their status, newest first. */
  async documents(userId: string): Promise<DocumentStatus[]> {
    const body = await this.call<Schemas["DocumentList"]>({
      method: "GET",
      path: "/v1/documents",
      params: { user_id: userId },
    });
    return body.documents;
  }

  /** The users memory is held of (a key's own tenant's), with their counts. */
  async users(tenant?: string): Promise<UserHeld[]> {
    const body = await this.call<Schemas["UserList"]>({
      method: "GET",
      path: "/v1/users",
      params: { tenant },
    });
    return body.users;
  }

  /**
   * What callers were given of the user's memory, newest first: who asked, the question,
   * the memory ids with their scores and the answer's digest; with `memoryId`, only the
   * answers that held it (where it was used).
   */
  async served(
    userId: string,
    options: { memoryId?: string; limit?: number } = {},
  ): Promise<ServedRecord[]> {
    const body = await this.call<Schemas["ServedList"]>({
      method: "GET",
      path: "/v1/served",
      params: { user_id: userId, memory_id: options.memoryId, limit: options.limit },
    });
    return body.served;
  }

  /** One served answer, with `rebuilt`: its text rendered again from its record. */
  servedAnswer(userId: string, servedId: string): Promise<ServedAnswer> {
    return this.call({
      method: "GET",
      path: `/v1/served/${encodeURIComponent(servedId)}`,
      params: { user_id: userId },
    });
  }

  stats(userId?: string): Promise<Stats> {
    return this.call({ method: "GET", path: "/v1/stats", params: { user_id: userId } });
  }

  /** Erase everything memstream keeps of `userId` (a tenant admin key's call); a
   * complete erasure's answer carries its signed `receipt`. */
  erase(userId: string): Promise<ErasureAnswer> {
    return this.call({ method: "DELETE", path: `/v1/users/${seg(userId)}`, timeoutMs: 300_000 });
  }

  /** Everything memstream holds of `userId`, streamed as the server sends it. */
  async export(
    userId: string,
    format: "events" | "json" | "markdown" = "events",
  ): Promise<ReadableStream<Uint8Array>> {
    const response = await this.send({
      method: "GET",
      path: `/v1/users/${seg(userId)}/export`,
      params: { format },
      timeoutMs: 300_000,
    });
    if (response.status >= 400) throw await refusal(response);
    if (!response.body) throw new MemstreamAPIError(response.status, "the export has no body");
    return response.body;
  }

  /** The API keys (an admin key's call). */
  async keys(): Promise<ApiKey[]> {
    const body = await this.call<Schemas["ApiKeyList"]>({ method: "GET", path: "/v1/keys" });
    return body.keys;
  }

  /** Create a key (an admin key's call); the answer holds the key, shown this once. */
  createKey(role: KeyRole, name?: string): Promise<NewApiKey> {
    return this.call({ method: "POST", path: "/v1/keys", json: { role, name } });
  }

  revokeKey(keyId: string): Promise<ApiKey> {
    return this.call({ method: "DELETE", path: `/v1/keys/${seg(keyId)}` });
  }

  /** Liveness: the server's `/healthz` answer. */
  health(): Promise<Liveness> {
    return this.call({ method: "GET", path: "/healthz" });
  }

  private async action(userId: string, memoryId: string, verb: string): Promise<void> {
    const body = await this.call<{ token?: string | null }>({
      method: "POST",
      path: `/v1/memories/${seg(memoryId)}/${verb}`,
      json: { user_id: userId },
    });
    this.wrote([userId], body);
  }

  private async call<T>(call: Call): Promise<T> {
    let response = await this.send(call);
    for (let attempt = 0; attempt < this.retries; attempt++) {
      const wait = retryAfter(response);
      if (wait === undefined) break;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      response = await this.send(call);
    }
    if (response.status >= 400) throw await refusal(response);
    return (await response.json()) as T;
  }

  private async send(call: Call): Promise<Response> {
    const base = await this.url();
    const address = new URL(base + call.path);
    for (const [name, value] of Object.entries(call.params ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) value.forEach((v) => address.searchParams.append(name, v));
      else address.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { ...this.asking };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let body: BodyInit | undefined;
    if (call.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(call.json);
    } else if (call.form) {
      body = call.form;
    }
    try {
      return await this.fetcher(address, {
        method: call.method,
        headers,
        body,
        signal: AbortSignal.timeout(call.timeoutMs ?? this.timeoutMs),
      });
    } catch (error) {
      throw new MemstreamUnreachable(base, unreachableReason(error));
    }
  }
}

/** `event`, with `occurred_at` now if it is a message that says no time. */
function timed(event: MemoryEvent, now: string): MemoryEvent {
  const type = (event as { type?: string }).type ?? "message";
  if (type !== "message" || "occurred_at" in event) return event;
  return { ...event, occurred_at: now };
}

function seg(id: string): string {
  return encodeURIComponent(id);
}

async function refusal(response: Response): Promise<MemstreamAPIError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    return new MemstreamAPIError(response.status, body.detail ?? body);
  } catch {
    return new MemstreamAPIError(response.status, text);
  }
}

/** Seconds to wait before asking again, when the server said to (429, 503). */
function retryAfter(response: Response): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const seconds = Number(response.headers.get("retry-after") ?? "");
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_RETRY_AFTER
    ? seconds
    : undefined;
}
