// One real `memstream up` for the whole run: its own data folder and free ports, made to
// die with this process (setpriv --pdeathsig), stopped with SIGTERM at the end.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    memstreamUrl: string;
    memstreamData: string;
    memstreamKey: string;
  }
}

const ROOT = resolve(import.meta.dirname, "..", "..", "..");

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function waitFor(what: string, ready: () => Promise<boolean>, seconds: number) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} within ${seconds} s`);
}

export default async function setup(project: TestProject) {
  const given = process.env.MEMSTREAM_TEST_URL;
  if (given) {
    project.provide("memstreamUrl", given);
    project.provide("memstreamData", process.env.MEMSTREAM_TEST_DATA ?? "");
    project.provide("memstreamKey", process.env.MEMSTREAM_TEST_KEY ?? "");
    return;
  }
  const folder = mkdtempSync(join(tmpdir(), "memstream-ts-"));
  const data = join(folder, "memstream-data");
  const log = join(folder, "memstream.log");
  const [api, broker, metrics] = [await freePort(), await freePort(), await freePort()];
  const python = process.env.MEMSTREAM_PYTHON ?? join(ROOT, ".venv", "bin", "python");
  // an admin key of tenant "ts": the server then asks every request for a key
  const keyFile = join(folder, "admin.key");
  const made = spawnSync(python, ["-m", "memstream", "keys", "create", "--tenant", "ts",
    "--role", "admin", "--name", "vitest", "--key-file", keyFile, "--data", data]);
  if (made.status !== 0) throw new Error(`no admin key: ${made.stderr}`);
  const key = readFileSync(keyFile, "utf8").trim();
  const command = [python, "-m", "memstream", "up", "--data", data];
  const setpriv = spawnSync("setpriv", ["--help"]).status === 0;
  const argv = setpriv ? ["setpriv", "--pdeathsig", "KILL", ...command] : command;
  const { openSync } = await import("node:fs");
  const out = openSync(log, "a");
  const child: ChildProcess = spawn(argv[0] as string, argv.slice(1), {
    cwd: folder,
    stdio: ["ignore", out, out],
    env: {
      ...process.env,
      MEMSTREAM_API_PORT: String(api),
      MEMSTREAM_BROKER_PORT: String(broker),
      MEMSTREAM_METRICS_PORT: String(metrics),
      MEMSTREAM_EMBEDDER: "none",
    },
  });
  const url = `http://127.0.0.1:${api}`;
  const said = () => readFileSync(log, "utf8");
  try {
    await waitFor(
      "memstream up was not ready",
      async () => {
        if (child.exitCode !== null) throw new Error(`memstream up exited:\n${said()}`);
        if (!said().includes("ready: ")) return false;
        return fetch(`${url}/healthz`).then((r) => r.ok, () => false);
      },
      120,
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  project.provide("memstreamUrl", url);
  project.provide("memstreamData", data);
  project.provide("memstreamKey", key);
  return async () => {
    const gone = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await gone;
    clearTimeout(timer);
    rmSync(folder, { recursive: true, force: true });
  };
}
