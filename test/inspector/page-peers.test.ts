/**
 * The inspector in Chromium against agents we did not write or that misbehave: the official
 * SDK's server (JSON-RPC and REST), a server whose answers break the spec, an unreachable URL,
 * a server that is not A2A, an invalid card, a stream the server drops, and a huge artifact.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSdkServer } from '../support/sdk-server.js';
import { createA2AServer } from '../../src/server/http.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { openInspector, openTab, removeAssets, screenshot } from './browser.js';
import { startDropper, startMalformed, startNotA2A } from './agents.js';

after(() => removeAssets());

for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
  test(`the official SDK's server over ${binding}: stream in order, answer a question`, async (t) => {
    const sdk = await startSdkServer({ stepMs: 5 });
    t.after(() => sdk.close());
    const { page } = await openInspector(t);
    await page.locator('input[name=url]').fill(sdk.url);
    await page.locator('select[name=binding]').selectOption(binding);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'sdk-test-agent' }).waitFor();
    assert.match(
      (await page.getByTestId('agent-line').textContent()) ?? '',
      new RegExp(`${binding.replace('+', '\\+')}`),
    );
    await openTab(page, 'Conversation');
    await page.locator('textarea[name=text]').fill('stream:3');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
    assert.match((await page.getByTestId('artifact-log').textContent()) ?? '', /line 1\s*line 2\s*line 3/);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.locator('textarea[name=text]').fill('ask');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('prompt').filter({ hasText: 'which one?' }).waitFor();
    // Answered without streaming: the scripted SDK agent starts a follow-up with a status
    // update, which the SDK's own streaming refuses ("statusUpdate before initial Task").
    await page.getByLabel(/^stream/).uncheck();
    await page.locator('textarea[name=text]').fill('the blue one');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
    assert.match((await page.getByTestId('artifact-answer').textContent()) ?? '', /got: the blue one/);
    await openTab(page, 'Timeline');
    const kinds = await page
      .locator('.stream')
      .last()
      .locator('table.events tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-kind')));
    assert.equal(kinds[0], 'task');
    assert.equal(kinds.filter((k) => k === 'artifactUpdate').length, 3);
    await openTab(page, 'Raw wire');
    const flagged = await page.locator('.wire-row.flagged').count();
    assert.equal(flagged, 0, 'the SDK answers within the spec');
    await screenshot(page, `sdk-${binding === 'JSONRPC' ? 'jsonrpc' : 'rest'}`);
  });
}

test('a malformed answer gets a visible warning naming the rule', async (t) => {
  const agent = await startMalformed();
  t.after(() => agent.close());
  const { page } = await openInspector(t, { agent: agent.url });
  await page.getByRole('heading', { name: 'malformed' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('hello');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.turn.error').waitFor();
  await openTab(page, 'Raw wire');
  await page.locator('.wire-row.flagged').first().click();
  const problems = page.getByTestId('wire-problems');
  await problems.waitFor();
  const text = (await problems.textContent()) ?? '';
  assert.match(text, /breaks the spec/);
  assert.match(text, /JSON-RPC 2.0 §5: jsonrpc must be "2.0"/);
  assert.match(text, /a2a.proto SendMessageResponse/);
  await screenshot(page, 'malformed');
});

test('an unreachable URL, a server that is not A2A and an invalid card: a clear message', async (t) => {
  const web = await startNotA2A();
  t.after(() => web.close());
  const invalid = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name: 'broken', supportedInterfaces: [{ url: 'x' }], skills: 'none' }));
  });
  await new Promise<void>((resolve) => invalid.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => invalid.close(() => resolve())));
  const { page } = await openInspector(t);
  const connect = async (url: string) => {
    await openTab(page, 'Connection');
    await page.locator('input[name=url]').fill(url);
    await page.getByRole('button', { name: 'Connect' }).click();
    return page.getByTestId('notice');
  };
  const closed = await startNotA2A();
  await closed.close();
  let notice = await connect(closed.url);
  await notice.filter({ hasText: 'ECONNREFUSED' }).waitFor();
  notice = await connect(web.url);
  await notice.filter({ hasText: 'not an A2A agent' }).waitFor();
  notice = await connect(`http://127.0.0.1:${(invalid.address() as AddressInfo).port}`);
  await notice.filter({ hasText: 'the agent card is invalid' }).waitFor();
  const problems = page.getByTestId('card-problems');
  await problems.waitFor();
  const text = (await problems.textContent()) ?? '';
  assert.match(text, /supportedInterfaces\[0\]\.protocolBinding/);
  assert.match(text, /skills/);
  await screenshot(page, 'invalid-card');
});

test('a huge artifact is shown cut and the tab stays responsive', async (t) => {
  const agent: AgentExecutor = {
    async execute(_ctx, task) {
      await task.working();
      await task.artifact({ artifactId: 'big', text: 'x'.repeat(3_000_000) }, { lastChunk: true });
      return task.complete();
    },
  };
  const server = createA2AServer({
    agent,
    store: 'memory',
    card: {
      name: 'huge',
      description: 'd',
      version: '1',
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
    },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const { page } = await openInspector(t, { agent: url.replace(/\/+$/, '') });
  await page.getByRole('heading', { name: 'huge' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('anything');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
  await page.getByText(/Showing 20,000 of 3,000,000 characters/).waitFor();
  // Still responsive: another view renders, and the wire record says the body was cut.
  await openTab(page, 'Raw wire');
  await page.locator('.wire-row').first().click();
  await page.getByTestId('wire-detail').waitFor();
  assert.match((await page.getByTestId('wire-detail').textContent()) ?? '', /truncated by the inspector/);
});

test('a dropped stream is marked broken, said so in the conversation, and can be resubscribed', async (t) => {
  const agent = await startDropper();
  t.after(() => agent.close());
  const { page } = await openInspector(t, { agent: agent.url });
  await page.getByRole('heading', { name: 'dropper' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('go');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.turn.error').waitFor();
  assert.match((await page.locator('.turn.error').textContent()) ?? '', /\w/);
  await openTab(page, 'Timeline');
  await page.getByTestId('stream-status').filter({ hasText: 'broken' }).first().waitFor();
  await page.getByRole('button', { name: 'Resubscribe' }).click();
  await page.locator('.badge', { hasText: 'reconnect of stream 1' }).waitFor();
  await page.getByTestId('stream-status').filter({ hasText: 'broken' }).nth(1).waitFor();
  await screenshot(page, 'dropped-stream');
});

test('data and file parts go out and come back; AUTH_REQUIRED is a prompt answered on the task', async (t) => {
  const { echoCard, echoExecutor } = await import('../../src/agents/echo.js');
  const echo = createA2AServer({ agent: echoExecutor, card: echoCard, store: 'memory' });
  const { url } = await echo.listen(0, '127.0.0.1');
  t.after(() => echo.close());
  const { page } = await openInspector(t, { agent: url.replace(/\/+$/, '') });
  await page.getByRole('heading', { name: 'echo' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('with parts');
  await page.getByText('Data and file parts').click();
  await page.locator('textarea[name=data]').fill('{"answer": 42, "nested": {"ok": true}}');
  await page
    .locator('input[name=file]')
    .setInputFiles({ name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('hello file') });
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.locator('.turn.agent');
  await reply.waitFor();
  assert.match((await reply.textContent()) ?? '', /answer/);
  const link = reply.getByRole('link', { name: 'note.txt' });
  assert.equal(await link.getAttribute('download'), 'note.txt');
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const path = await download.path();
  const { readFile } = await import('node:fs/promises');
  assert.equal(await readFile(path, 'utf8'), 'hello file');

  const authAgent: AgentExecutor = {
    async execute(ctx, task) {
      if (ctx.task) return task.complete(`signed in as ${ctx.text}`);
      return task.requireAuth('sign in first: send your user name');
    },
  };
  const auth = createA2AServer({
    agent: authAgent,
    store: 'memory',
    card: {
      name: 'auth-agent',
      description: 'd',
      version: '1',
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
    },
  });
  const listening = await auth.listen(0, '127.0.0.1');
  t.after(() => auth.close());
  await openTab(page, 'Connection');
  await page.locator('input[name=url]').fill(listening.url.replace(/\/+$/, ''));
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByRole('heading', { name: 'auth-agent' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('deploy');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('prompt').filter({ hasText: 'auth required' }).waitFor();
  const taskId = await page.getByTestId('task-id').textContent();
  await page.locator('textarea[name=text]').fill('ada');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
  await page.locator('.artifact', { hasText: 'signed in as ada' }).waitFor();
  await openTab(page, 'Timeline');
  const labels = await page.locator('.stream header strong').allTextContents();
  assert.ok(labels.includes(`SendStreamingMessage on ${taskId}`), labels.join(' | '));
});

test('a v0.3 agent (the SDK 0.3 line): its card labelled, a conversation through the compat layer, the extended card', async (t) => {
  const { startSdkV03Server } = await import('../support/sdk-v03-server.js');
  const v03 = await startSdkV03Server();
  t.after(() => v03.close());
  const { page } = await openInspector(t, { agent: v03.url });
  await page.getByRole('heading', { name: 'sdk-v03-agent' }).waitFor();
  await page.getByText('A2A v0.3 card (shown in its v1.0 form)').waitFor();
  await page.getByRole('button', { name: /Get the extended card/ }).click();
  await page.getByText('the extended v0.3 card').waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('stream:2');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
  await openTab(page, 'Raw wire');
  // The v0.3 method name is on the wire as sent.
  await page.locator('.wire-row', { hasText: 'message/stream' }).first().waitFor();
});
