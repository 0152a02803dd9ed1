// The two ways a call fails: the API refused it, or no server answered.

/** The API refused a request; `status` and `detail` say why (a 422 names each field). */
export class MemstreamAPIError extends Error {
  readonly status: number;
  readonly detail: unknown;

  constructor(status: number, detail: unknown) {
    super(`${status}: ${describe(detail)}`);
    this.name = "MemstreamAPIError";
    this.status = status;
    this.detail = detail;
  }
}

/** No memstream server answers at `url`. */
export class MemstreamUnreachable extends Error {
  readonly url: string;

  constructor(url: string, reason: string) {
    super(
      `cannot reach memstream at ${url} (${reason}): start it with \`memstream up\`, or ` +
        "give the client its address (url, or MEMSTREAM_API_URL)",
    );
    this.name = "MemstreamUnreachable";
    this.url = url;
  }
}

/** A refusal's detail as one line: the server's words, each field's problem named. */
function describe(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((problem) => {
        if (problem && typeof problem === "object" && "msg" in problem) {
          const where = "loc" in problem && Array.isArray(problem.loc) ? problem.loc.join(".") : "";
          return where ? `${where}: ${String(problem.msg)}` : String(problem.msg);
        }
        return JSON.stringify(problem);
      })
      .join("; ");
  }
  return JSON.stringify(detail);
}

/** Why a fetch did not reach the server, in a few words. */
export function unreachableReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const text = cause instanceof Error ? cause.message : String(cause);
  if (/ECONNREFUSED|Connection refused/i.test(text)) return "connection refused";
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return "no answer in time";
  }
  return text || "unknown error";
}
