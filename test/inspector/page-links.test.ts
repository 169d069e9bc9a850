/**
 * Issue 27, finding 12, in Chromium: an agent's file-part URL becomes a link only when it is
 * http(s); `javascript:`, `data:` and other schemes (in any case, with leading spaces) are
 * shown as text, never as an `href` the user could click.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer } from '../../src/server/http.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import type { Part } from '../../src/model/schema.js';
import { openInspector, openTab, removeAssets, screenshot } from './browser.js';

after(() => removeAssets());

const hostile = [
  'javascript:alert(document.domain)',
  ' JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'not a url at all',
];

test('file parts: only http(s) URLs are links; every other scheme is text', async (t) => {
  const parts: Part[] = [
    { url: 'https://files.example.com/report.pdf', filename: 'good.pdf', mediaType: 'application/pdf' },
    ...hostile.map((url, i) => ({ url, filename: `bad-${i}.html`, mediaType: 'text/html' })),
  ];
  const agent: AgentExecutor = {
    async execute(_ctx, task) {
      await task.artifact({ artifactId: 'files', name: 'files', parts }, { lastChunk: true });
      return task.complete();
    },
  };
  const server = createA2AServer({
    agent,
    store: 'memory',
    card: {
      name: 'links',
      description: 'answers with file parts by URL',
      version: '1',
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
    },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const { page } = await openInspector(t, { agent: url.replace(/\/+$/, '') });
  await page.getByRole('heading', { name: 'links' }).waitFor();
  await openTab(page, 'Conversation');
  await page.locator('textarea[name=text]').fill('files please');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();
  const files = page.getByTestId('artifact-files').getByTestId('file-part');
  await files.first().waitFor();
  assert.equal(await files.count(), parts.length);
  const hrefs = await page
    .getByTestId('artifact-files')
    .locator('a[href]')
    .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.deepEqual(hrefs, ['https://files.example.com/report.pdf']);
  const text = (await page.getByTestId('artifact-files').textContent()) ?? '';
  for (let i = 0; i < hostile.length; i++) assert.match(text, new RegExp(`bad-${i}\\.html \\(not a link`));
  assert.match(text, /javascript:alert\(document\.domain\)/, 'the URL is still shown, as text');
  await screenshot(page, 'file-part-links');
});
