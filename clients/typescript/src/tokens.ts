/**
 * Write tokens: where in the log a write was put. A write answers one; a read given it
 * (`after_write`) answers once the server's projections hold that write. The client
 * keeps, per user, the token of its writes no read has seen yet, merged: per partition
 * the furthest offset, in the newest life (epoch) of the log.
 *
 * The text is `w1.` and the URL-safe base64 of `{"e": epoch, "p": {topic: {partition:
 * offset}}}`; callers treat it as opaque.
 */

interface Token {
  e: string;
  p: Record<string, Record<string, number>>;
}

const PREFIX = "w1.";

function decode(text: string): Token | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  try {
    const body = text.slice(PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
    const parsed = JSON.parse(atob(body + "=".repeat((4 - (body.length % 4)) % 4))) as Token;
    return typeof parsed.e === "string" && typeof parsed.p === "object" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function encode(token: Token): string {
  const base64 = btoa(JSON.stringify({ e: token.e, p: token.p }));
  return PREFIX + base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** One token for two writes (either may be absent). */
export function mergeTokens(a: string | undefined, b: string | undefined): string | undefined {
  const first = a === undefined ? undefined : decode(a);
  const second = b === undefined ? undefined : decode(b);
  if (!first || !second) return second ? b : first ? a : undefined;
  if (first.e !== second.e) return first.e > second.e ? a : b;
  const p: Token["p"] = {};
  for (const token of [first, second]) {
    for (const [topic, offsets] of Object.entries(token.p)) {
      const into = (p[topic] ??= {});
      for (const [partition, offset] of Object.entries(offsets)) {
        into[partition] = Math.max(offset, into[partition] ?? -1);
      }
    }
  }
  return encode({ e: first.e, p });
}

/** Per user, the token of writes no read has seen applied yet. */
export class UnseenWrites {
  private readonly tokens = new Map<string, string>();

  wrote(users: Iterable<string>, token: unknown): void {
    if (typeof token !== "string" || !decode(token)) return;
    for (const user of new Set(users)) {
      this.tokens.set(user, mergeTokens(this.tokens.get(user), token) ?? token);
    }
  }

  of(userId: string): string | undefined {
    return this.tokens.get(userId);
  }

  /** A read of `userId` after `token` was answered: later reads need not wait for it. */
  seen(userId: string, token: string): void {
    if (this.tokens.get(userId) === token) this.tokens.delete(userId);
  }
}
