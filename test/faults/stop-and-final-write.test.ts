/**
 * Issue 26, defects 1 (graceful stop) and 3 (final write), on a real server process over
 * SQLite: a caller whose agent never answered gets UnavailableError when the server stops
 * (not a closed socket), and an execution whose end cannot be written ends its stream with
 * an error, reaches onError, keeps its lease and is failed once the store takes writes again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InternalError, UnavailableError } from '../../src/errors/a2a-error.js';
import { TaskState } from '../../src/model/enums.js';
import { freshStore, startChild, stopChild } from './harness.js';
import { connect } from './scenario.js';

/** Waits for `done` (polling), failing with `what` after `tries` looks. */
async function until(done: () => boolean | Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`gave up waiting for ${what}`);
}

for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
  test(
    `${binding}: a graceful stop answers a caller still waiting for its agent with UnavailableError`,
    { timeout: 60_000 },
    async (t) => {
      const store = freshStore('sqlite');
      t.after(() => store.dispose());
      const child = await startChild(store.spec, {});
      t.after(() => stopChild(child));
      let out = '';
      child.process.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const client = await connect(child.url!, [binding]);
      t.after(() => client.close());
      const call = client.send({ text: 'silent', messageId: 'stop-silent' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await until(() => out.includes('silent agent started'), 'the agent to start');
      child.process.kill('SIGTERM');
      const error = await call;
      // JSON-RPC has no code of its own for it: -32603 (DIGEST's error table), with the reason.
      if (binding === 'JSONRPC') {
        assert.ok(error instanceof InternalError, `expected -32603, got ${String(error)}`);
      } else assert.ok(error instanceof UnavailableError, `expected UnavailableError, got ${String(error)}`);
      assert.match(String((error as Error).message), /server is stopping/);
      const end = await child.exited;
      assert.equal(end.code, 0, child.stderr());
    },
  );
}

// The timeout turns the defect (a stream that never ends) into a failure.
test(
  'an end the store refuses ends the stream with an error, reaches onError, and is failed later',
  { timeout: 60_000 },
  async (t) => {
    const store = freshStore('sqlite');
    t.after(() => store.dispose());
    // The agent's second write (its artifact and end) fails, then the FAILED end, and the first
    // retry of it too.
    const child = await startChild(store.spec, {
      A2A_FAULT_POINT: 'task.stage:2:eio,task.update:1:eio,task.update:2:eio',
    });
    t.after(() => stopChild(child));
    const client = await connect(child.url!);
    t.after(() => client.close());
    let taskId = '';
    let streamError: unknown;
    const states: string[] = [];
    try {
      for await (const event of client.stream({ text: 'durable', messageId: 'final-write' })) {
        if (event.kind === 'task') taskId = event.task.id;
        if (event.kind === 'statusUpdate') states.push(event.statusUpdate.status.state);
      }
    } catch (error) {
      streamError = error;
    }
    assert.ok(taskId, 'the task was created');
    // UnavailableError; on JSON-RPC (the card's first binding) that is -32603.
    assert.ok(
      streamError instanceof UnavailableError || streamError instanceof InternalError,
      `the stream ended with ${String(streamError)}`,
    );
    assert.match(String((streamError as Error).message), /could not record/);
    await until(() => child.stderr().includes('onError:'), 'onError');
    // The lease was kept: this process fails the task at a later heartbeat.
    await until(async () => (await client.getTask(taskId)).status.state === TaskState.FAILED, 'FAILED');
    const task = await client.getTask(taskId);
    assert.match(task.status.message?.parts[0]?.text ?? '', /could not record how this task ended/);
    const end = await stopChild(child);
    assert.equal(end.code, 0, child.stderr());
    assert.doesNotMatch(child.stderr(), /Unhandled|uncaught/i);
  },
);
