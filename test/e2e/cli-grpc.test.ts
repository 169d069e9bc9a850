/**
 * gRPC through the real CLI: `a2a serve --grpc-port 0` lists a GRPC interface on its
 * card and serves it; `a2a send|get --binding grpc` pick that interface from the card.
 * Every child runs with a bounded timeout and is stopped by the test that started it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { exitCode, isRunning, runCli, spawnCli, waitForLine } from '../support/cli.js';

/** The `{kind, <kind>: value}` lines printed with --json. */
function kindLines(stdout: string): { kind: string; [k: string]: unknown }[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { kind: string });
}

/** The values of the --json lines (what each line's `kind` names). */
function jsonLines(stdout: string): Record<string, unknown>[] {
  return kindLines(stdout).map((line) => line[line.kind] as Record<string, unknown>);
}

interface PrintedTask {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: { text?: string }[] } };
  artifacts?: { artifactId: string; parts: { text?: string }[] }[];
}

describe('a2a serve --grpc-port and a2a send/get --binding grpc', () => {
  let server: ChildProcess;
  let url: string;
  let grpcTarget: string;

  before(async () => {
    server = spawnCli(['serve', '--agent', 'bench', '--port', '0', '--grpc-port', '0']);
    const match = await waitForLine(
      server,
      /a2a-kit: bench agent at (http:\/\/127\.0\.0\.1:\d+) \(card: \S+, grpc: (127\.0\.0\.1:\d+)\)\n/,
    );
    url = match[1]!;
    grpcTarget = match[2]!;
  });
  after(() => {
    if (isRunning(server)) server.kill('SIGKILL');
  });

  test('the card lists a GRPC interface at the printed host:port', async () => {
    assert.doesNotMatch(grpcTarget, /:0$/);
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };
    assert.deepEqual(
      card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion]),
      [
        ['JSONRPC', `${url}/a2a/jsonrpc`, '1.0'],
        ['HTTP+JSON', `${url}/a2a/rest`, '1.0'],
        ['GRPC', grpcTarget, '1.0'],
        // v0.3 compatibility: the same interfaces at 0.3 (test/bindings/compat-v03).
        ['JSONRPC', `${url}/a2a/jsonrpc`, '0.3'],
        ['HTTP+JSON', `${url}/a2a/rest`, '0.3'],
        ['GRPC', grpcTarget, '0.3'],
      ],
    );
    const shown = await runCli(['card', url]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`GRPC 1\\.0 ${grpcTarget.replace(/\./g, '\\.')}`));
  });

  test('send --binding grpc --json prints the completed Task as one ProtoJSON line', async () => {
    const r = await runCli(['send', url, 'task:over grpc', '--binding', 'grpc', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const [task, ...rest] = jsonLines(r.stdout) as unknown as PrintedTask[];
    assert.equal(rest.length, 0);
    assert.equal(task?.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(task?.artifacts, [{ artifactId: 'out', parts: [{ text: 'over grpc' }] }]);

    // The same task read back over gRPC, and over JSON-RPC: one server, one store.
    const viaGrpc = await runCli(['get', url, task!.id, '--binding', 'grpc', '--json']);
    assert.equal(viaGrpc.code, 0, viaGrpc.stderr);
    const viaJsonRpc = await runCli(['get', url, task!.id, '--binding', 'jsonrpc', '--json']);
    assert.equal(viaJsonRpc.code, 0, viaJsonRpc.stderr);
    assert.deepEqual(jsonLines(viaGrpc.stdout), jsonLines(viaJsonRpc.stdout));
    assert.equal((jsonLines(viaGrpc.stdout)[0] as unknown as PrintedTask).id, task!.id);
  });

  test('send --binding grpc: a direct message, readable and as JSON', async () => {
    const text = await runCli(['send', url, 'echo:hello grpc', '--binding', 'grpc']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout.trim(), 'hello grpc');
    const json = await runCli(['send', url, 'echo:hello grpc', '--binding', 'GRPC', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const [message] = jsonLines(json.stdout) as { role?: string; parts?: unknown }[];
    assert.equal(message?.role, 'ROLE_AGENT');
    assert.deepEqual(message?.parts, [{ text: 'hello grpc' }]);
  });

  test('send --stream --binding grpc --json prints each stream event on its own line', async () => {
    const r = await runCli(['send', url, 'stream:3', '--stream', '--binding', 'grpc', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const events = kindLines(r.stdout);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['task', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    const chunks = events.slice(1, 4).map(
      (e) =>
        e.artifactUpdate as {
          artifact: { parts: { text: string }[] };
          append?: boolean;
          lastChunk?: boolean;
        },
    );
    assert.deepEqual(
      chunks.map((c) => [c.artifact.parts[0]?.text, c.append ?? false, c.lastChunk ?? false]),
      [
        ['chunk-1', false, false],
        ['chunk-2', true, false],
        ['chunk-3', true, true],
      ],
    );
    const last = events[4]!.statusUpdate as { status: { state: string } };
    assert.equal(last.status.state, 'TASK_STATE_COMPLETED');
  });

  test('multi-turn over gRPC: --task and --context continue an input-required task', async () => {
    const asked = await runCli(['send', url, 'input:your name?', '--binding', 'grpc', '--json']);
    assert.equal(asked.code, 5, asked.stderr); // input-required
    const task = jsonLines(asked.stdout)[0] as unknown as PrintedTask;
    assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.deepEqual(task.status.message?.parts, [{ text: 'your name?' }]);
    const answered = await runCli([
      'send',
      url,
      'Ada',
      '--binding',
      'grpc',
      '--task',
      task.id,
      '--context',
      task.contextId,
      '--json',
    ]);
    assert.equal(answered.code, 0, answered.stderr);
    const done = jsonLines(answered.stdout)[0] as unknown as PrintedTask;
    assert.equal(done.id, task.id);
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(done.artifacts, [{ artifactId: 'out', parts: [{ text: 'Ada' }] }]);
  });

  test('over gRPC, a rejected task exits 4 and protocol errors 8', async () => {
    const rejected = await runCli(['send', url, 'slow:soon', '--binding', 'grpc', '--json']);
    assert.equal(rejected.code, 4);
    assert.equal(
      (jsonLines(rejected.stdout)[0] as unknown as PrintedTask).status.state,
      'TASK_STATE_REJECTED',
    );
    const unknown = await runCli(['get', url, 'no-such-task', '--binding', 'grpc']);
    assert.equal(unknown.code, 8);
    assert.match(unknown.stderr, /TaskNotFoundError/);
    const unknownTask = await runCli(['send', url, 'more', '--binding', 'grpc', '--task', 'no-such-task']);
    assert.equal(unknownTask.code, 8);
    assert.match(unknownTask.stderr, /TaskNotFoundError/);
  });

  test('SIGTERM stops the server (HTTP and gRPC) with exit code 0', async () => {
    server.kill('SIGTERM');
    assert.equal(await exitCode(server), 0);
  });
});

test('send --binding grpc to an agent without gRPC names what the card offers', async (t) => {
  const server = spawnCli(['serve', '--agent', 'bench', '--port', '0']);
  t.after(() => {
    if (isRunning(server)) server.kill('SIGKILL');
  });
  const match = await waitForLine(
    server,
    /a2a-kit: bench agent at (http:\/\/127\.0\.0\.1:\d+) \(card: \S+\)\n/,
  );
  const url = match[1]!;
  const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
    supportedInterfaces: { protocolBinding: string; protocolVersion: string }[];
  };
  assert.deepEqual(
    card.supportedInterfaces.filter((i) => i.protocolVersion === '1.0').map((i) => i.protocolBinding),
    ['JSONRPC', 'HTTP+JSON'],
    'no GRPC interface without --grpc-port',
  );
  const r = await runCli(['send', url, 'task:x', '--binding', 'grpc']);
  assert.equal(r.code, 8);
  assert.match(r.stderr, /A2ANoCompatibleInterfaceError/);
  assert.match(r.stderr, /GRPC/);
  assert.match(r.stderr, /JSONRPC 1\.0 at http/);
  server.kill('SIGTERM');
  assert.equal(await exitCode(server), 0);
});
