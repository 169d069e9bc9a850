/**
 * The inspector in Chromium against the bench agent on createA2AServer: the card, a streamed
 * conversation with events in order, an input-required question answered on the same task,
 * the task list and a task's detail, cancel of a slow task, a push delivery, the raw JSON-RPC
 * envelope copied as curl.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openInspector, openTab, removeAssets, screenshot, until } from './browser.js';
import { startBench } from './agents.js';

after(() => removeAssets());

test('card, streamed conversation in order, and the raw envelope as curl', async (t) => {
  const bench = await startBench();
  t.after(() => bench.close());
  const { page } = await openInspector(t, { agent: bench.url });
  await page.getByRole('heading', { name: 'bench' }).waitFor();
  await page.getByText('valid against the A2A model').waitFor();
  assert.equal(await page.getByTestId('signature').textContent(), 'signature: unsigned');
  await page.getByText('A2A v1.0 card').waitFor();
  // One interface is the one in use: JSON-RPC 1.0 (the same URL also serves v0.3).
  assert.deepEqual(await page.locator('tr.current td:nth-child(3)').allTextContents(), ['1.0']);
  await screenshot(page, 'card');

  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('stream:5');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
  const artifact = await page.getByTestId('artifact-out').textContent();
  assert.match(artifact ?? '', /chunk-1chunk-2chunk-3chunk-4chunk-5/);
  await screenshot(page, 'conversation');

  await openTab(page, 'Timeline');
  const rows = page.locator('table.events tbody tr');
  await page.getByTestId('stream-status').filter({ hasText: 'ended' }).waitFor();
  const kinds = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-kind')));
  assert.equal(kinds[0], 'task');
  assert.deepEqual(kinds.filter((k) => k === 'artifactUpdate').length, 5, `kinds: ${kinds.join(',')}`);
  const indexes = await rows.evaluateAll((trs) =>
    trs.map((tr) => Number(tr.querySelector('td')?.textContent)),
  );
  assert.deepEqual(
    indexes,
    indexes.map((_, i) => i + 1),
  );
  const states = await rows.evaluateAll((trs) => trs.map((tr) => tr.children[3]?.textContent ?? ''));
  assert.equal(states.at(-1), 'completed');
  await screenshot(page, 'timeline');

  // The raw link of the stream opens its exchange: the JSON-RPC envelope and each SSE event.
  await page.locator('.stream header').getByRole('button', { name: 'raw' }).click();
  const detail = page.getByTestId('wire-detail');
  await detail.waitFor();
  const request = await page.getByTestId('wire-request-body').textContent();
  assert.match(request ?? '', /"jsonrpc": "2.0"/);
  assert.match(request ?? '', /"method": "SendStreamingMessage"/);
  await page.getByTestId('copy-curl').click();
  await page.getByTestId('copy-curl').filter({ hasText: 'copied' }).waitFor();
  const copied = String(await page.evaluate('navigator.clipboard.readText()'));
  assert.match(copied, /^curl -N -X POST http:\/\/127\.0\.0\.1:\d+\/[^ ]* \\/);
  assert.match(copied, /-H 'a2a-version: 1.0'|-H a2a-version:\\ 1.0|a2a-version: 1.0/);
  assert.match(copied, /--data-raw '\{"jsonrpc":"2.0"/);
  assert.equal(copied, await page.getByTestId('curl').textContent());
  await screenshot(page, 'wire');
});

test('an input-required question is answered on the same task', async (t) => {
  const bench = await startBench();
  t.after(() => bench.close());
  const { page } = await openInspector(t, { agent: bench.url });
  await page.getByRole('heading', { name: 'bench' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('input:what is your name?');
  await page.getByRole('button', { name: 'Send' }).click();
  const prompt = page.getByTestId('prompt');
  await prompt.waitFor();
  assert.match((await prompt.textContent()) ?? '', /what is your name\?/);
  const taskId = (await page.getByTestId('task-id').textContent()) ?? '';
  const contextId = (await page.getByTestId('context-id').textContent()) ?? '';
  assert.match(taskId, /^[\w-]{8,}$/);
  await screenshot(page, 'input-required');
  await page.locator('textarea[name=text]').fill('Ada');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
  assert.match((await page.getByTestId('artifact-out').textContent()) ?? '', /Ada/);
  assert.equal(await page.getByTestId('context-id').textContent(), contextId);
  await openTab(page, 'Timeline');
  await page.locator('.stream').nth(1).waitFor();
  const labels = await page.locator('.stream header strong').allTextContents();
  assert.ok(labels.includes(`SendStreamingMessage on ${taskId}`), labels.join(' | '));
});

test('list tasks, open one, cancel a slow task, and see a push delivery arrive', async (t) => {
  const bench = await startBench();
  t.after(() => bench.close());
  const { page } = await openInspector(t, { agent: bench.url });
  await page.getByRole('heading', { name: 'bench' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('task:first');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
  // A slow task: the conversation's Cancel button ends it.
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.locator('textarea[name=text]').fill('slow:60000');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'working' }).waitFor();
  const slowId = (await page.getByTestId('task-id').textContent()) ?? '';
  await page.getByRole('button', { name: 'Cancel task' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'canceled' }).waitFor();

  await openTab(page, 'Tasks');
  await page.getByRole('button', { name: 'List tasks' }).click();
  const rows = page.locator('table.tasks-table tbody tr');
  await rows.nth(1).waitFor();
  assert.equal(await rows.count(), 2);
  // Paging: one task a page, next and back.
  await page.locator('input[name=pageSize]').fill('1');
  await page.getByRole('button', { name: 'List tasks' }).click();
  await until(async () => (await rows.count()) === 1, 'one task row');
  const first = await rows.first().locator('td').first().textContent();
  await page.getByRole('button', { name: 'Next page' }).click();
  await until(
    async () => (await rows.first().locator('td').first().textContent()) !== first,
    'the next page',
  );
  assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Previous page' }).click();
  await until(
    async () => (await rows.first().locator('td').first().textContent()) === first,
    'the first page again',
  );
  await page.locator('input[name=pageSize]').fill('20');
  // Filter by state: only the canceled one.
  await page.locator('select[name=state]').selectOption('CANCELED');
  await page.getByRole('button', { name: 'List tasks' }).click();
  await until(async () => (await rows.count()) === 1, 'one task row');
  await page.getByRole('button', { name: slowId }).click();
  const detail = page.getByTestId('task-detail');
  await detail.waitFor();
  assert.equal(await page.getByTestId('detail-state').textContent(), 'canceled');
  await screenshot(page, 'tasks');

  // Push: a new slow task pointed at the inspector's receiver, then canceled: the change arrives.
  await openTab(page, 'Conversation');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.locator('textarea[name=text]').fill('slow:60000');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'working' }).waitFor();
  const pushedId = (await page.getByTestId('task-id').textContent()) ?? '';
  await openTab(page, 'Push');
  await page.locator('input[name=taskId]').fill(pushedId);
  await page.getByRole('button', { name: 'Point its push notifications at the inspector' }).click();
  await page.getByTestId('notice').filter({ hasText: 'now pushes to' }).waitFor();
  // Subscribe to it from its detail: the subscription opens with the task as it is.
  await openTab(page, 'Tasks');
  await page.locator('select[name=state]').selectOption('WORKING');
  await page.getByRole('button', { name: 'List tasks' }).click();
  await page.getByRole('button', { name: pushedId }).click();
  await page.getByTestId('task-detail').getByRole('button', { name: 'Subscribe' }).click();
  const subscription = page.locator('.stream', { hasText: `SubscribeToTask ${pushedId}` });
  await subscription.locator('tbody tr[data-kind=task]').waitFor();
  await openTab(page, 'Conversation');
  await page.getByRole('button', { name: 'Cancel task' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'canceled' }).waitFor();
  await openTab(page, 'Timeline');
  await subscription.getByTestId('stream-status').filter({ hasText: 'ended' }).waitFor();
  assert.equal(await subscription.locator('tbody tr').last().locator('td').nth(3).textContent(), 'canceled');
  await openTab(page, 'Push');
  const delivery = page.getByTestId('push-delivery').first();
  await delivery.waitFor({ timeout: 20_000 });
  assert.match((await delivery.textContent()) ?? '', new RegExp(pushedId));
  assert.match((await delivery.textContent()) ?? '', /token ok/);
  assert.equal(await delivery.getByTestId('push-signature').textContent(), 'signature verified');
  assert.match((await delivery.locator('pre.body').textContent()) ?? '', /TASK_STATE_CANCELED/);
  await screenshot(page, 'push');
});

test('gRPC from the browser, through the backend: events and each gRPC message on the wire', async (t) => {
  const bench = await startBench({ grpc: true });
  t.after(() => bench.close());
  const { page } = await openInspector(t);
  await page.locator('input[name=url]').fill(bench.url);
  await page.locator('select[name=binding]').selectOption('GRPC');
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByRole('heading', { name: 'bench' }).waitFor();
  assert.match((await page.getByTestId('agent-line').textContent()) ?? '', /GRPC/);
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('stream:3');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
  assert.match((await page.getByTestId('artifact-out').textContent()) ?? '', /chunk-1chunk-2chunk-3/);
  await openTab(page, 'Raw wire');
  await page.locator('.wire-row', { hasText: 'GRPC' }).first().click();
  const detail = page.getByTestId('wire-detail');
  await detail.waitFor();
  const text = (await detail.textContent()) ?? '';
  assert.match(text, /lf\.a2a\.v1\.A2AService\/SendStreamingMessage/);
  assert.match(text, /event 5/);
  assert.match((await page.getByTestId('curl').textContent()) ?? '', /^grpcurl /);
});

test('readable on a narrow window in the dark theme, and driven by keyboard', async (t) => {
  const bench = await startBench();
  t.after(() => bench.close());
  const { page } = await openInspector(t, {
    agent: bench.url,
    viewport: { width: 400, height: 800 },
    colorScheme: 'dark',
  });
  await page.getByRole('heading', { name: 'bench' }).waitFor();
  const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
  assert.equal(background, 'rgb(21, 23, 27)', 'the dark theme applies');
  // Arrow keys move between tabs; Enter on a focused control works as a click.
  await page.getByRole('tab', { name: 'Card' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.locator('[role=tab][aria-selected=true]', { hasText: 'Conversation' }).waitFor();
  await page.locator('textarea[name=text]').focus();
  await page.keyboard.type('echo:hi there');
  await page.keyboard.press('Control+Enter');
  await page.locator('.turn.agent', { hasText: 'hi there' }).waitFor();
  const overflow = Number(
    await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
  );
  assert.ok(overflow <= 0, `no sideways scrolling at 400 px (overflow ${overflow}px)`);
  await screenshot(page, 'narrow-dark');
});
