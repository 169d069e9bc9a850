/** `a2a serve` end to end: the real CLI in a child process, on a free port, stopped by SIGTERM. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STARTUP_TIMEOUT_MS = 30_000;

function runCli(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with the first stdout line matching `pattern`, or rejects if the child exits first. */
function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`no matching line; stderr: ${stderr}`)),
      STARTUP_TIMEOUT_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = buffer.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing; stdout: ${buffer}; stderr: ${stderr}`));
    });
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

test('a2a serve --agent echo serves the card and messages, and exits 0 on SIGTERM', async (t) => {
  const child = runCli(['serve', '--agent', 'echo', '--port', '0']);
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const match = await waitForLine(
    child,
    /^a2a-kit: echo agent at (http:\/\/127\.0\.0\.1:(\d+)) \(card: (\S+)\)$/m,
  );
  const [, url, port, cardUrl] = match;
  assert.notEqual(port, '0');
  assert.equal(cardUrl, `${url}/.well-known/agent-card.json`);

  const cardResponse = await fetch(cardUrl!);
  assert.equal(cardResponse.status, 200);
  const card = (await cardResponse.json()) as {
    name: string;
    supportedInterfaces: { url: string; protocolBinding: string }[];
  };
  assert.equal(card.name, 'echo');
  const jsonrpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC');
  assert.ok(jsonrpc, 'the card lists a JSON-RPC interface');

  const reply = await fetch(jsonrpc.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'SendMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi from e2e' }] } },
    }),
  });
  assert.equal(reply.status, 200);
  const body = (await reply.json()) as { id: number; result?: { message?: { parts: { text?: string }[] } } };
  assert.equal(body.id, 7);
  assert.equal(body.result?.message?.parts[0]?.text, 'hi from e2e');

  child.kill('SIGTERM');
  assert.equal(await exitCode(child), 0);
});

test('a2a serve with an unknown agent fails with a message and exit code 1', async (t) => {
  const child = runCli(['serve', '--agent', 'nope', '--port', '0']);
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  assert.equal(await exitCode(child), 1);
  assert.match(stderr, /unknown agent "nope"/);
});
