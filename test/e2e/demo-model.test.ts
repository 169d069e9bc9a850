/**
 * `a2a demo --model-url URL --model NAME`: the demo's real test-runner and deployer, and the
 * planner on a model (an OpenAI-compatible endpoint on loopback, scripted like a model that read
 * the tools: test, deploy, ask the user the deployer's question, pass the answer back, report).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCode, isRunning, spawnCli } from '../support/cli.js';
import { startFakeOpenAI, type FakeOpenAI } from '../bridges/openai-fake.js';

type Request = FakeOpenAI['requests'][number];
/** The ship request the demo sent (the user's data part, as the model sees it: JSON text). */
const shipRequest = (r: Request): { repo: string; commit: string } =>
  JSON.parse(
    JSON.stringify(r.messages.find((m) => m.role === 'user')!.content)
      .match(/\{\\"repo.*?\}/)![0]
      .replace(/\\"/g, '"'),
  );
/** The latest tool result the model was given. */
const lastToolResult = (r: Request): { state: string; text: string; taskId?: string } =>
  JSON.parse(String(r.messages.filter((m) => m.role === 'tool').at(-1)!.content));
/** The user's latest message (the answer to askUser). */
const lastUserText = (r: Request): string =>
  JSON.stringify(r.messages.filter((m) => m.role === 'user').at(-1)!.content);

test("a2a demo with --model-url: the model drives the real peers and the deployer's question", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-demo-model-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  let deployTask = '';
  const fake = await startFakeOpenAI([
    (r) => ({
      tool: 'test-runner',
      arguments: JSON.stringify({ message: 'run the tests', data: shipRequest(r) }),
    }),
    (r) => {
      assert.equal(lastToolResult(r).state, 'COMPLETED');
      return {
        tool: 'deployer',
        arguments: JSON.stringify({ message: 'deploy', data: { ...shipRequest(r), env: 'staging' } }),
      };
    },
    (r) => {
      const asked = lastToolResult(r);
      deployTask = asked.taskId ?? '';
      return { tool: 'askUser', arguments: JSON.stringify({ question: asked.text }) };
    },
    (r) => ({
      tool: 'deployer',
      arguments: JSON.stringify({ message: /yes/.test(lastUserText(r)) ? 'yes' : 'no', taskId: deployTask }),
    }),
    { text: ['Tests passed; ', 'deployed payments-api to staging.'] },
  ]);
  t.after(() => fake.close());

  const child = spawnCli([
    'demo',
    '--data-dir',
    dir,
    '--ports',
    '0,0,0',
    '--exit',
    '--model-url',
    fake.baseURL,
    '--model',
    'tiny',
  ]);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  assert.equal(await exitCode(child), 0, `${stdout}\n${stderr}`);
  assert.match(
    stdout,
    /deploy payments-api@[0-9a-f]{7} to staging\? \(stdin is not a terminal: answering yes\)/,
  );
  assert.match(stdout, /planner task \S+: completed/);
  assert.match(stdout, /Tests passed; deployed payments-api to staging\./);
  assert.equal(fake.requests.length, 5);
  assert.match(await readlink(join(dir, 'deployer', 'releases', 'staging', 'current')), /^[0-9a-f]{40}$/);
});
