/** The bridges' small translations: MCP content to A2A parts and back, tool names, arguments, command lines. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  partToContent,
  resultToParts,
  UnrepresentableContentError,
  MAX_RESULT_BYTES,
} from '../../src/bridges/mcp/content.js';
import { parseSkillArguments, skillTools } from '../../src/bridges/mcp/skill-tools.js';
import { splitCommandLine } from '../../src/cli/serve-mcp.js';
import type { AgentCard } from '../../src/model/schema.js';

test('A2A parts become MCP content: text, data as JSON, image, audio, file, link', () => {
  const b64 = Buffer.from('x').toString('base64');
  assert.deepEqual(partToContent({ text: 'hi' }, 'a2a://t', 0), { type: 'text', text: 'hi' });
  assert.deepEqual(partToContent({ data: { a: 1 } }, 'a2a://t', 0), { type: 'text', text: '{"a":1}' });
  assert.deepEqual(partToContent({ raw: b64, mediaType: 'image/png' }, 'a2a://t', 0), {
    type: 'image',
    data: b64,
    mimeType: 'image/png',
  });
  assert.deepEqual(partToContent({ raw: b64, mediaType: 'audio/wav' }, 'a2a://t', 0), {
    type: 'audio',
    data: b64,
    mimeType: 'audio/wav',
  });
  assert.deepEqual(partToContent({ raw: b64, filename: 'a b.txt' }, 'a2a://t', 3), {
    type: 'resource',
    resource: { uri: 'a2a://t/a%20b.txt', mimeType: 'application/octet-stream', blob: b64 },
  });
  assert.deepEqual(partToContent({ url: 'https://x/y.pdf', mediaType: 'application/pdf' }, 'a2a://t', 1), {
    type: 'resource_link',
    uri: 'https://x/y.pdf',
    name: 'part-1',
    mimeType: 'application/pdf',
  });
});

test('MCP results A2A cannot hold are refused with the reason', () => {
  const refuse = (result: unknown, pattern: RegExp) =>
    assert.throws(
      () => resultToParts(result as never),
      (e: unknown) => e instanceof UnrepresentableContentError && pattern.test(e.message),
    );
  refuse({ content: [{ type: 'image', data: '***', mimeType: 'image/png' }] }, /not valid base64/);
  refuse({ content: [{ type: 'video', data: 'x' }] }, /content of type "video" has no A2A part/);
  refuse({ content: 'text' }, /no content array/);
  refuse({ content: [{ type: 'text', text: 'x'.repeat(MAX_RESULT_BYTES + 1) }] }, /larger than/);
  assert.deepEqual(resultToParts({ content: [], structuredContent: { ok: true } }), [{ data: { ok: true } }]);
});

test('skill ids become unique MCP tool names', () => {
  const card = {
    name: 'a',
    skills: [
      { id: 'run tests', name: 'R', description: 'd', tags: ['t'] },
      { id: 'run_tests', name: 'R2', description: 'd', tags: ['t'] },
      { id: '', name: 'E', description: 'd', tags: ['t'], examples: ['go'] },
    ],
  } as unknown as AgentCard;
  const tools = skillTools(card).map((t) => t.tool);
  assert.deepEqual(
    tools.map((t) => t.name),
    ['run_tests', 'run_tests_2', 'skill'],
  );
  assert.match(tools[2]!.description!, /Examples: "go"/);
});

test('skill tool arguments are checked', () => {
  assert.deepEqual(parseSkillArguments({ message: 'hi', taskId: 't' }), { message: 'hi', taskId: 't' });
  assert.equal(parseSkillArguments([]), 'arguments must be an object');
  assert.equal(parseSkillArguments({ message: 1 }), '"message" (a string) is required');
  assert.equal(parseSkillArguments({ message: 'x', data: [1] }), '"data" must be an object');
  assert.equal(parseSkillArguments({ message: 'x', taskId: '' }), '"taskId" must be a non-empty string');
  assert.equal(parseSkillArguments({ message: '' }), '"message" is empty and there is no "data"');
});

test('--mcp command lines split like a shell would, without one', () => {
  assert.deepEqual(splitCommandLine(`node "my server.js" --name 'a b' c\\ d`), [
    'node',
    'my server.js',
    '--name',
    'a b',
    'c d',
  ]);
  assert.deepEqual(splitCommandLine('  npx  -y pkg  '), ['npx', '-y', 'pkg']);
  assert.deepEqual(splitCommandLine(`x ""`), ['x', '']);
  assert.throws(() => splitCommandLine('node "open'), /unclosed "/);
});
