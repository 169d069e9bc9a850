/**
 * The README's server and client, run as written: its first two TypeScript blocks are written to
 * files (the `a2a-kit/*` imports pointed at src/), the server is started as its own process on a
 * free port, and the client is run against it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README's TypeScript blocks, in order. */
function typescriptBlocks(): string[] {
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** `code` with its `a2a-kit/<entry>` imports pointed at the entry's source file. */
function againstSources(code: string): string {
  const entries = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports as Record<
    string,
    { types: string }
  >;
  return code.replace(/from '(a2a-kit(?:\/[\w-]+)?)'/g, (_, specifier: string) => {
    const entry = entries[specifier === 'a2a-kit' ? '.' : `./${specifier.slice('a2a-kit/'.length)}`];
    assert.ok(entry, `the README imports ${specifier}, which package.json does not export`);
    const source = entry.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
    return `from '${pathToFileURL(join(root, source)).href}'`;
  });
}

/** Runs a TypeScript file with tsx, as `npx tsx file` would. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

test('README: the server and the client run as written', { timeout: 120_000 }, async (t) => {
  const [serverCode = '', clientCode = ''] = typescriptBlocks();
  assert.ok(serverCode.includes('createA2AServer'), 'the first TypeScript block is the server');
  assert.ok(clientCode.includes('A2AClient'), 'the second TypeScript block is the client');
  assert.ok(serverCode.trim().split('\n').length <= 20, 'the server is at most 20 lines');
  assert.ok(clientCode.trim().split('\n').length <= 10, 'the client is at most 10 lines');

  const dir = mkdtempSync(join(tmpdir(), 'a2a-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // An ESM project, as the README asks for (top-level await).
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(dir, 'server.ts'), againstSources(serverCode));
  writeFileSync(join(dir, 'client.ts'), againstSources(clientCode));

  // A free port, and the memory store so that nothing is written to the working directory.
  const server = run(join(dir, 'server.ts'), [], { PORT: '0', A2A_STORE: 'memory' });
  const serverExit = once(server, 'exit');
  t.after(async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
    await serverExit;
  });
  let serverErr = '';
  server.stderr!.on('data', (chunk: Buffer) => (serverErr += chunk.toString()));
  let url: string | undefined;
  for await (const line of createInterface({ input: server.stdout! })) {
    url = /^agent at (http:\/\/\S+)$/.exec(line)?.[1];
    if (url) break;
  }
  assert.ok(url, `the server printed its URL (stderr: ${serverErr})`);

  const client = run(join(dir, 'client.ts'), [url], {});
  let out = '';
  let err = '';
  client.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  client.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const [code] = (await once(client, 'exit')) as [number | null];
  assert.equal(code, 0, `the client exits 0 (stderr: ${err})`);
  assert.deepEqual(out.trim().split('\n'), [
    "TASK_STATE_COMPLETED { text: 'Hello, world!' }",
    // The task exists from the agent's first event (WORKING), so the stream opens with it.
    'task',
    'artifactUpdate',
    'statusUpdate',
  ]);

  // The README says so: SIGTERM closes the server, and its process ends by itself.
  server.kill('SIGTERM');
  const [, signal] = (await serverExit) as [number | null, NodeJS.Signals | null];
  assert.equal(signal, null, 'the server ended by closing, not by the signal');
});
