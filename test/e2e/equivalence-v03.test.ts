/**
 * v0.3 and v1.0 give the same results (issue 14): one scenario transcript (send, stream, get,
 * list where v0.3 has it, cancel, resubscribe, the input-required round trip, errors) run by our
 * client against our server (`bench` agent) over six paths: JSON-RPC, REST and gRPC, each at
 * v1.0 and at v0.3. The v0.3 paths are chosen by connecting with the server's card cut down to
 * its v0.3 interfaces, so the requests really travel as v0.3 (slash methods, `kind`, `/v1/...`).
 *
 * A transcript records what a caller observes: kinds, states, texts, error classes, whether ids
 * match. Consecutive repeats of the same state are collapsed: a v0.3 stream that ends on a Task
 * snapshot gets one more status update carrying that same state (so that it can say `final`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { benchCard, benchExecutor } from '../../src/agents/index.js';
import { A2AClient, type StreamEvent } from '../../src/client/client.js';
import type { BindingName } from '../../src/client/binding-selection.js';
import { V03JsonRpcTransport } from '../../src/bindings/compat-v03/jsonrpc-client.js';
import { V03RestTransport } from '../../src/bindings/compat-v03/rest-client.js';
import { V03GrpcTransport } from '../../src/bindings/compat-v03/grpc-client.js';
import { A2AError } from '../../src/errors/index.js';
import type { AgentCard, Task } from '../../src/model/schema.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';

interface Path {
  name: string;
  binding: BindingName;
  version: '1.0' | '0.3';
}

const PATHS: readonly Path[] = [
  { name: 'v1.0 JSON-RPC', binding: 'JSONRPC', version: '1.0' },
  { name: 'v1.0 REST', binding: 'HTTP+JSON', version: '1.0' },
  { name: 'v0.3 JSON-RPC', binding: 'JSONRPC', version: '0.3' },
  { name: 'v0.3 REST', binding: 'HTTP+JSON', version: '0.3' },
  { name: 'v1.0 gRPC', binding: 'GRPC', version: '1.0' },
  { name: 'v0.3 gRPC', binding: 'GRPC', version: '0.3' },
];

type Transcript = [string, unknown][];

let server: A2AServer;
let card: AgentCard;

before(async () => {
  server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    pushNotifications: true,
    grpc: { port: 0, host: '127.0.0.1' },
  });
  await server.listen(0, '127.0.0.1');
  card = server.card();
});
after(() => server.close());

async function clientFor(path: Path): Promise<A2AClient> {
  const only: AgentCard = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === path.version),
  };
  const client = await A2AClient.connect(only, { bindings: [path.binding], retry: false });
  assert.equal(client.binding, path.binding);
  // The transport really is the v0.3 one on the v0.3 paths.
  const inner = (client.transport as unknown as { inner: unknown }).inner;
  const grpcInner = (inner as { inner?: unknown }).inner;
  const v03 =
    inner instanceof V03JsonRpcTransport ||
    inner instanceof V03RestTransport ||
    inner instanceof V03GrpcTransport ||
    grpcInner instanceof V03GrpcTransport;
  assert.equal(v03, path.version === '0.3');
  return client;
}

function outcome(error: unknown): string {
  return error instanceof A2AError ? `error ${error.code}` : `failure ${String(error)}`;
}

/** State changes and artifact texts of a stream, consecutive repeated states collapsed. */
function summarize(events: StreamEvent[]): unknown {
  const states: string[] = [];
  const kinds: string[] = [];
  let text = '';
  for (const e of events) {
    if (kinds.at(-1) !== e.kind || e.kind === 'artifactUpdate') kinds.push(e.kind);
    const state =
      e.kind === 'task'
        ? e.task.status.state
        : e.kind === 'statusUpdate'
          ? e.statusUpdate.status.state
          : undefined;
    if (state && states.at(-1) !== state) states.push(state);
    if (e.kind === 'artifactUpdate')
      text += e.artifactUpdate.artifact.parts.map((p) => p.text ?? '').join('');
  }
  // The repeated closing update is a status update after a task snapshot: drop it from the kinds.
  while (kinds.length > 1 && kinds.at(-1) === 'statusUpdate' && kinds.at(-2) === 'task') kinds.pop();
  return { kinds, states, text };
}

async function drain(stream: AsyncIterable<StreamEvent>, max = 500): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) {
    out.push(e);
    if (out.length >= max) break;
  }
  return out;
}

function taskOf(result: Awaited<ReturnType<A2AClient['send']>>): Task {
  assert.equal(result.kind, 'task');
  return (result as { task: Task }).task;
}

async function scenario(client: A2AClient): Promise<Transcript> {
  const t: Transcript = [];
  const record = (label: string, value: unknown) => t.push([label, value]);

  const echo = await client.send({ text: 'echo:same everywhere' });
  record(
    'echo',
    echo.kind === 'message' ? { role: echo.message.role, parts: echo.message.parts } : echo.kind,
  );

  const done = taskOf(await client.send({ text: 'task:payload' }));
  record('send', {
    state: done.status.state,
    artifact: done.artifacts?.map((a) => [a.artifactId, a.parts]),
    history: done.history?.map((m) => [m.role, m.parts]),
  });
  const got = await client.getTask(done.id, { historyLength: 1 });
  record('get', { same: got.id === done.id, state: got.status.state, history: got.history?.length });

  record('stream', summarize(await drain(client.stream({ text: 'stream:4' }))));

  const running = taskOf(await client.send({ text: 'slow:60000', returnImmediately: true }));
  record('returnImmediately', running.status.state === 'TASK_STATE_COMPLETED' ? 'completed' : 'early');
  const subscription = client.subscribeToTask(running.id)[Symbol.asyncIterator]();
  const first = await subscription.next();
  record('subscribe first', first.done ? 'ended' : first.value.kind);
  const canceled = await client.cancelTask(running.id);
  record('cancel', canceled.status.state);
  const rest: StreamEvent[] = [];
  for (let r = await subscription.next(); !r.done && rest.length < 100; r = await subscription.next())
    rest.push(r.value);
  record('subscribe rest', summarize(rest));
  record('cancel again', (await client.cancelTask(running.id)).status.state);
  record('cancel completed', await client.cancelTask(done.id).then(() => 'ok', outcome));

  const asked = taskOf(await client.send({ text: 'input:Which repository?' }));
  record('ask', { state: asked.status.state, question: asked.status.message?.parts });
  const answered = taskOf(
    await client.send({ text: 'a2a-kit', taskId: asked.id, contextId: asked.contextId }),
  );
  record('answer', {
    same: answered.id === asked.id,
    state: answered.status.state,
    artifact: answered.artifacts?.[0]?.parts,
  });
  record('to terminal task', await client.send({ text: 'more', taskId: asked.id }).then(() => 'ok', outcome));
  const streamed = summarize(await drain(client.stream({ text: 'input:Again?' })));
  record('ask streaming', streamed);

  record('unknown task', await client.getTask('no-such-task').then(() => 'ok', outcome));
  const config = { taskId: done.id, id: 'cfg', url: 'https://hooks.example/x', token: 't' };
  const ownTask = ({ taskId, ...rest }: { taskId?: string }) => ({ ...rest, sameTask: taskId === done.id });
  record('push set', ownTask(await client.createTaskPushNotificationConfig(config)));
  record('push list', (await client.listTaskPushNotificationConfigs(done.id)).configs?.map(ownTask));
  await client.deleteTaskPushNotificationConfig(done.id, 'cfg');
  record(
    'push get deleted',
    await client.getTaskPushNotificationConfig(done.id, 'cfg').then(() => 'ok', outcome),
  );
  return t;
}

describe('v0.3 and v1.0 paths give the same transcript', () => {
  const transcripts = new Map<string, Transcript>();

  for (const path of PATHS) {
    test(`scenario over ${path.name}`, async () => {
      const client = await clientFor(path);
      try {
        transcripts.set(path.name, await scenario(client));
      } finally {
        await client.close();
      }
    });
  }

  test('every path equals v1.0 JSON-RPC, step by step', () => {
    const reference = transcripts.get('v1.0 JSON-RPC');
    assert.ok(reference, 'the reference run happened');
    for (const path of PATHS.slice(1)) {
      const transcript = transcripts.get(path.name);
      assert.ok(transcript, `${path.name} ran`);
      assert.deepEqual(
        transcript.map(([label]) => label),
        reference.map(([label]) => label),
      );
      for (let i = 0; i < reference.length; i++) {
        assert.deepEqual(transcript[i], reference[i], `${path.name} differs at "${reference[i]?.[0]}"`);
      }
    }
    const steps = new Map(reference);
    assert.deepEqual(steps.get('stream'), {
      kinds: ['task', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
      states: ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
      text: 'chunk-1chunk-2chunk-3chunk-4',
    });
    assert.equal(steps.get('cancel'), 'TASK_STATE_CANCELED');
    assert.equal(steps.get('cancel completed'), 'error TaskNotCancelable');
    assert.equal(steps.get('to terminal task'), 'error UnsupportedOperation');
    assert.equal(steps.get('unknown task'), 'error TaskNotFound');
    assert.equal(steps.get('push get deleted'), 'error TaskNotFound');
  });

  test('ListTasks where v0.3 has it (REST /v1/tasks) matches v1.0; v0.3 JSON-RPC and gRPC have none', async () => {
    const results: Record<string, unknown> = {};
    for (const path of PATHS) {
      const client = await clientFor(path);
      try {
        const sent = taskOf(await client.send({ text: 'task:listed' }));
        results[path.name] = await client
          .listTasks({ contextId: sent.contextId })
          .then((r) => r.tasks.map((x) => [x.id === sent.id, x.status.state]), outcome);
      } finally {
        await client.close();
      }
    }
    assert.deepEqual(results, {
      'v1.0 JSON-RPC': [[true, 'TASK_STATE_COMPLETED']],
      'v1.0 REST': [[true, 'TASK_STATE_COMPLETED']],
      'v0.3 JSON-RPC': 'error UnsupportedOperation',
      'v0.3 REST': [[true, 'TASK_STATE_COMPLETED']],
      'v1.0 gRPC': [[true, 'TASK_STATE_COMPLETED']],
      'v0.3 gRPC': 'error UnsupportedOperation',
    });
  });
});
