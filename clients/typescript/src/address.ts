// Where the API answers: the rule the Python client and the command line follow.
//
// The `url` given, else MEMSTREAM_API_URL, else (in Node, Bun and Deno, which can read
// files) the server running for the data folder: the `api.json` it announces itself in
// (in MEMSTREAM_STATE_DIR if set, else MEMSTREAM_DATA, else ./memstream-data), trusted
// only while its process lives and its /healthz answers with the same instance; else
// http://127.0.0.1:8787.

export const DEFAULT_URL = "http://127.0.0.1:8787";
const ADDRESS_FILE = "api.json";
const HEALTH_MS = 1000;

type Environment = Record<string, string | undefined>;

/** The process environment where the runtime has one (not in browsers). */
export function environment(): Environment {
  const host = globalThis as { process?: { env?: Environment } };
  return host.process?.env ?? {};
}

/** The API's base URL, found by the rule above. */
export async function serverUrl(
  url?: string,
  env: Environment = environment(),
): Promise<string> {
  if (url) return url.replace(/\/+$/, "");
  if (env.MEMSTREAM_API_URL) return env.MEMSTREAM_API_URL.replace(/\/+$/, "");
  const data = env.MEMSTREAM_DATA || "./memstream-data";
  const folder = env.MEMSTREAM_STATE_DIR || (data.startsWith("s3://") ? "./memstream-state" : data);
  return (await runningApi(folder)) ?? DEFAULT_URL;
}

/** The URL announced in `folder`, if its server runs and answers as itself. */
async function runningApi(folder: string): Promise<string | undefined> {
  let text: string;
  try {
    // named at run time, so a bundler for browsers or edge runtimes leaves it alone
    const fs = (await load("node:fs/promises")) as typeof import("node:fs/promises");
    text = await fs.readFile(`${folder.replace(/\/+$/, "")}/${ADDRESS_FILE}`, "utf8");
  } catch {
    return undefined; // no file, or a runtime without a filesystem
  }
  let announced: { url?: unknown; pid?: unknown; instance?: unknown };
  try {
    announced = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { url, pid, instance } = announced;
  if (typeof url !== "string" || typeof pid !== "number" || typeof instance !== "string") {
    return undefined;
  }
  if (!/^https?:\/\//.test(url) || !alive(pid)) return undefined;
  try {
    const answer = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HEALTH_MS) });
    const health = (await answer.json()) as { instance?: unknown };
    return health.instance === instance ? url : undefined;
  } catch {
    return undefined;
  }
}

function load(specifier: string): Promise<unknown> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
}

function alive(pid: number): boolean {
  const host = globalThis as { process?: { kill?: (pid: number, signal: number) => void } };
  if (!host.process?.kill) return true; // the health check decides
  try {
    host.process.kill(pid, 0);
    return true;
  } catch {
    return false; // gone, or another user's: not ours to ask
  }
}
