import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

/** The MongoDB server of a --storage mongodb run. */
export interface MongoServer {
  /** Without a database name: each server of the run picks its own database. */
  readonly url: string;
  /** The server's pid when the bench started it (its CPU is read around each run). */
  readonly pid?: number | undefined;
  stop(): Promise<void>;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);

/**
 * MONGODB_URL when set (never stopped); else a mongod already on this machine, through mongodb-memory-server
 * (it never downloads one for the bench); else jongodb, the MongoDB-wire server the tests use offline.
 */
export async function startMongoServer(): Promise<MongoServer> {
  const external = process.env.MONGODB_URL;
  if (external !== undefined && external !== '') {
    log('MongoDB: MONGODB_URL');
    return { url: external, stop: async () => undefined };
  }
  return (await localMongod()) ?? (await startJongodb());
}

async function localMongod(): Promise<MongoServer | undefined> {
  process.env.MONGOMS_RUNTIME_DOWNLOAD ??= 'false';
  const { MongoBinary, MongoMemoryServer } = await import('mongodb-memory-server');
  // Asked first, so that no mongod means one line here rather than the failed start's stack trace.
  const binary = await MongoBinary.getPath().catch((error: unknown) => log(`MongoDB: no local mongod (${(error as Error).message}), using jongodb`));
  if (binary === undefined) return undefined;
  const server = await MongoMemoryServer.create({ instance: { ip: '127.0.0.1' } });
  log(`MongoDB: ${binary} through mongodb-memory-server at ${server.getUri()}`);
  return { url: server.getUri(), pid: server.instanceInfo?.instance.mongodProcess?.pid, stop: async () => void (await server.stop({ doCleanup: true, force: true })) };
}

const JONGODB = '@jongodb/memory-server-bin-linux-x64-gnu';

/** jongodb on a port of its choosing; it prints `JONGODB_URI=mongodb://host:port/test` once it accepts connections. */
async function startJongodb(): Promise<MongoServer> {
  const manifest = createRequire(import.meta.url).resolve(`${JONGODB}/package.json`);
  const binary = (JSON.parse(readFileSync(manifest, 'utf8')) as { jongodb: { binary: string } }).jongodb.binary;
  const child = spawn(join(dirname(manifest), binary), ['--host=127.0.0.1', '--port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // A bench that dies must not leave the server behind.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let uri: string;
  try {
    uri = await readyLine(child);
  } catch (error) {
    kill();
    throw error;
  }
  const url = `mongodb://${new URL(uri).host}/`;
  log(`MongoDB: jongodb at ${url}`);
  return {
    url,
    pid: child.pid,
    stop: async () => {
      process.off('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const hard = setTimeout(kill, 5000);
      await exited;
      clearTimeout(hard);
    },
  };
}

/** Waits for the JONGODB_URI line; from then on the output is read and dropped (a full pipe would stall the server). */
function readyLine(child: ChildProcessByStdio<null, Readable, Readable>): Promise<string> {
  let output = '';
  return new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /^JONGODB_URI=(\S+)$/m.exec(output)?.[1];
      if (found === undefined) return;
      for (const pipe of [child.stdout, child.stderr]) pipe.off('data', read).resume();
      resolve(found);
    };
    for (const pipe of [child.stdout, child.stderr]) pipe.on('data', read);
    child.once('exit', (code) => reject(new Error(`jongodb exited (${code}) before it was ready:\n${output}`)));
    setTimeout(() => reject(new Error(`jongodb was not ready in 10 s:\n${output}`)), 10_000).unref();
  });
}

/** A database name of its own for one server of one run. */
export function freshDbName(hint: string): string {
  return `bench_${hint.replace(/\W/g, '_')}_${process.pid.toString(36)}_${Date.now().toString(36)}`.slice(0, 63);
}
