/**
 * `a2a push set|get|list|delete|listen` as real processes against a real `a2a serve --agent
 * bench` with push on: configs in both output modes, a signed delivery received and verified by
 * `push listen`, the notification token checked, duplicates dropped, and bad input as one line
 * with the right exit code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { exitCode, isRunning, runCli, spawnCli, waitForLine, watchOutput } from '../support/cli.js';

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { kind: string; [k: string]: unknown });

const oneLine = (stderr: string) => {
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at .+:\d+:\d+/, stderr);
};

/** A task waiting in INPUT_REQUIRED: nothing happens to it until it is answered. */
async function waitingTask(url: string): Promise<string> {
  const asked = await runCli(['send', url, 'input:go on?']);
  assert.equal(asked.code, 5, asked.stderr);
  return /--task ([0-9a-f-]{36})/.exec(asked.stderr)![1]!;
}

function stop(child: ChildProcess): void {
  if (isRunning(child)) child.kill('SIGKILL');
}

describe('a2a push against an agent with push on', () => {
  let server: ChildProcess;
  let url: string;
  before(async () => {
    server = spawnCli(
      ['serve', '--agent', 'bench', '--port', '0', '--store', 'memory', '--log-level', 'silent'].concat([
        '--push-allow-host',
        '127.0.0.1',
        '--push-allow-http',
        '--grpc-port',
        '0',
      ]),
    );
    url = (await waitForLine(server, /bench agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  });
  after(() => stop(server));

  test('set, get, list, delete in human and --json output', async () => {
    const taskId = await waitingTask(url);
    const hook = 'http://127.0.0.1:9/hook';
    const set = await runCli(['push', 'set', url, taskId, hook, '--id', 'ci', '--webhook-token', 'tok']);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, new RegExp(`^push config ci for task ${taskId}\n  url: ${hook}\n  token: set`));
    assert.doesNotMatch(set.stdout, /tok\b/, 'the token is not echoed');
    const second = await runCli([
      'push',
      'set',
      url,
      taskId,
      'http://127.0.0.1:9/other',
      '--auth-scheme',
      'Bearer',
      '--auth-credentials',
      'abc',
      '--json',
    ]);
    assert.equal(second.code, 0, second.stderr);
    const [made] = lines(second.stdout);
    assert.equal(made?.kind, 'pushConfig');
    const config = made!.pushConfig as { id: string; taskId: string; authentication: { scheme: string } };
    assert.equal(config.taskId, taskId);
    assert.equal(config.authentication.scheme, 'Bearer');
    assert.ok(config.id, 'the agent picked an id');

    const got = await runCli(['push', 'get', url, taskId, 'ci', '--json']);
    assert.equal(got.code, 0, got.stderr);
    assert.deepEqual(
      lines(got.stdout).map((l) => [l.kind, (l.pushConfig as { url: string }).url]),
      [['pushConfig', hook]],
    );
    const listed = await runCli(['push', 'list', url, taskId]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      listed.stdout.trim().split('\n').sort(),
      [`${config.id}  http://127.0.0.1:9/other`, `ci  ${hook}`].sort(),
    );

    const deleted = await runCli(['push', 'delete', url, taskId, 'ci', '--json']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(lines(deleted.stdout), [{ kind: 'deleted', deleted: { taskId, id: 'ci' } }]);
    const human = await runCli(['push', 'delete', url, taskId, config.id]);
    assert.equal(human.stdout.trim(), `deleted push config ${config.id} of task ${taskId}`);
    const empty = await runCli(['push', 'list', url, taskId, '--json']);
    assert.deepEqual([empty.code, empty.stdout], [0, '']);
    await runCli(['cancel', url, taskId]);
  });

  test('set and get on the REST and gRPC bindings too', async () => {
    const taskId = await waitingTask(url);
    for (const binding of ['rest', 'grpc']) {
      const hook = `http://127.0.0.1:9/${binding}`;
      const set = await runCli([
        'push',
        'set',
        url,
        taskId,
        hook,
        '--id',
        binding,
        '--binding',
        binding,
        '--json',
      ]);
      assert.equal(set.code, 0, set.stderr);
      const got = await runCli(['push', 'get', url, taskId, binding, '--binding', binding, '--json']);
      assert.equal(got.code, 0, got.stderr);
      assert.deepEqual(lines(got.stdout)[0]?.pushConfig, { taskId, id: binding, url: hook });
    }
    await runCli(['cancel', url, taskId]);
  });

  test('push listen receives a signed delivery of a task that completes, verified, and exits with its state', async (t) => {
    const listener = spawnCli(['push', 'listen', '--card', url, '--exit-on-terminal', '--timeout', '90s']);
    t.after(() => stop(listener));
    const out = watchOutput(listener);
    const hook = (await out.waitFor(/push receiver at (http:\/\/127\.0\.0\.1:\d+\/)/))[1]!;
    await out.waitFor(
      /signatures checked against http:\/\/127\.0\.0\.1:\d+\/\.well-known\/a2a-push-jwks\.json/,
      'stderr',
    );
    const taskId = await waitingTask(url);
    const set = await runCli(['push', 'set', url, taskId, hook]);
    assert.equal(set.code, 0, set.stderr);
    const answered = await runCli(['send', url, 'yes', '--task', taskId]);
    assert.equal(answered.code, 0, answered.stderr);
    assert.equal(await exitCode(listener), 0, out.stderr);
    const completed = new RegExp(
      `^task ${taskId} completed.*\\(notification [0-9a-f-]{36}, signature verified\\)$`,
      'm',
    );
    assert.match(out.stdout, completed);
    assert.match(out.stdout, new RegExp(`^task ${taskId} artifact out.*: yes .*signature verified`, 'm'));
    assert.doesNotMatch(out.stderr, /refused/);
  });

  test('push listen --json --token: one NDJSON line per notification; a wrong token is refused; a retried id is dropped; SIGTERM stops it', async (t) => {
    const listener = spawnCli(['push', 'listen', '--token', 'right', '--json', '--timeout', '90s']);
    t.after(() => stop(listener));
    const out = watchOutput(listener);
    const hook = (
      await out.waitFor(/"kind":"listening","listening":\{"url":"(http:\/\/127\.0\.0\.1:\d+\/)"/)
    )[1]!;

    // A config with the wrong token: the agent's delivery is refused (and retried later).
    const wrongTask = await waitingTask(url);
    assert.equal((await runCli(['push', 'set', url, wrongTask, hook, '--webhook-token', 'wrong'])).code, 0);
    const taskId = await waitingTask(url);
    assert.equal((await runCli(['push', 'set', url, taskId, hook, '--webhook-token', 'right'])).code, 0);
    assert.equal((await runCli(['send', url, 'no', '--task', wrongTask])).code, 0);
    assert.equal((await runCli(['send', url, 'ok', '--task', taskId])).code, 0);
    await out.waitFor(/refused a notification \(401\): missing or wrong notification credentials/, 'stderr');
    await out.waitFor(/"state":"TASK_STATE_COMPLETED"/);

    // The same notification id twice (a retry): printed once.
    const body = JSON.stringify({
      statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
    });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(hook, {
        method: 'POST',
        headers: {
          'content-type': 'application/a2a+json',
          'x-a2a-notification-token': 'right',
          'x-a2a-notification-id': 'retried-1',
        },
        body,
      });
      assert.equal(res.status, 200);
      await res.text();
    }
    await out.waitFor(/"notificationId":"retried-1"/);
    listener.kill('SIGTERM');
    assert.equal(await exitCode(listener), 0, out.stderr);

    const events = lines(out.stdout);
    assert.deepEqual(events[0], { kind: 'listening', listening: { url: hook } });
    const mine = events.slice(1).filter((e) => (e.notification as { taskId: string }).taskId === taskId);
    assert.ok(
      events.slice(1).every((e) => (e.notification as { taskId: string }).taskId === taskId),
      'nothing from the task with the wrong token',
    );
    const last = mine.filter((e) => e.kind === 'statusUpdate').at(-1)!;
    assert.deepEqual(last.notification, { taskId, notificationId: 'retried-1', signature: 'unchecked' });
    assert.equal(
      mine.filter((e) => (e.notification as { notificationId?: string }).notificationId === 'retried-1')
        .length,
      1,
    );
    const done = mine.find(
      (e) =>
        e.kind === 'statusUpdate' &&
        (e.statusUpdate as { status: { state: string } }).status.state === 'TASK_STATE_COMPLETED',
    );
    assert.ok(done, out.stdout);
    assert.match((done.notification as { notificationId: string }).notificationId, /^[0-9a-f-]{36}$/);
  });

  test('bad input: unknown task or config exit 8, a refused webhook address exit 8, bad arguments exit 2, each one line', async () => {
    const unknownTask = await runCli(['push', 'list', url, 'no-such-task']);
    assert.equal(unknownTask.code, 8);
    assert.match(unknownTask.stderr, /^a2a: TaskNotFoundError: /);
    oneLine(unknownTask.stderr);
    const setUnknown = await runCli(['push', 'set', url, 'no-such-task', 'http://127.0.0.1:9/']);
    assert.equal(setUnknown.code, 8, setUnknown.stderr);
    oneLine(setUnknown.stderr);

    const taskId = await waitingTask(url);
    const unknownConfig = await runCli(['push', 'get', url, taskId, 'nope']);
    assert.equal(unknownConfig.code, 8);
    assert.match(unknownConfig.stderr, /^a2a: TaskNotFoundError: push notification config nope not found/);
    oneLine(unknownConfig.stderr);

    // 10.0.0.1 is private and not allow-listed: the agent's address guard refuses it.
    const privateHook = await runCli(['push', 'set', url, taskId, 'https://10.0.0.1/hook']);
    assert.equal(privateHook.code, 8);
    assert.match(privateHook.stderr, /^a2a: InvalidParamsError: config\.url is refused: .*10\.0\.0\.1/);
    oneLine(privateHook.stderr);

    const notUrl = await runCli(['push', 'set', url, taskId, 'not a url']);
    assert.equal(notUrl.code, 2);
    assert.match(notUrl.stderr, /^a2a: not a webhook URL: not a url/);
    oneLine(notUrl.stderr);
    const credsAlone = await runCli([
      'push',
      'set',
      url,
      taskId,
      'https://example.com/',
      '--auth-credentials',
      'x',
    ]);
    assert.equal(credsAlone.code, 2);
    oneLine(credsAlone.stderr);
    const missing = await runCli(['push', 'get', url, taskId]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing required argument 'configId'/);
    const badPort = await runCli(['push', 'listen', '--port', 'eighty']);
    assert.equal(badPort.code, 2);
    const both = await runCli(['push', 'listen', '--card', url, '--jwks', `${url}/x`]);
    assert.equal(both.code, 2);
    oneLine(both.stderr);
    await runCli(['cancel', url, taskId]);
  });

  test('help of push and each subcommand has examples', async () => {
    for (const args of [
      ['push'],
      ['push', 'set'],
      ['push', 'get'],
      ['push', 'list'],
      ['push', 'delete'],
      ['push', 'listen'],
    ]) {
      const help = await runCli([...args, '--help']);
      assert.equal(help.code, 0, args.join(' '));
      assert.match(help.stdout, /Examples:\n {2}\$ a2a push/, args.join(' '));
    }
  });
});

describe('a2a push against an agent with push off', () => {
  test('push list: PushNotificationNotSupportedError, exit 8', async (t) => {
    const server = spawnCli([
      'serve',
      '--agent',
      'echo',
      '--port',
      '0',
      '--store',
      'memory',
      '--no-push',
      '--log-level',
      'silent',
    ]);
    t.after(() => stop(server));
    const url = (await waitForLine(server, /echo agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const r = await runCli(['push', 'list', url, 'any']);
    assert.equal(r.code, 8);
    assert.match(r.stderr, /PushNotificationNotSupported/);
    oneLine(r.stderr);
    const listen = await runCli(['push', 'listen', '--card', url]);
    assert.equal(listen.code, 2);
    assert.match(listen.stderr, /names no push JWKS/);
  });
});
