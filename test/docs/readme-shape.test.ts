/** The README stays a short introduction: it opens with the two commands and links every guide. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

test('the README opens with the demo and test commands and stays under about 250 lines', () => {
  const opening = readme.split('\n').slice(0, 6).join('\n');
  assert.match(opening, /^npm ci && npm start\b/m);
  assert.match(opening, /^npm ci && npm test\b/m);
  assert.ok(readme.split('\n').length <= 260, `README.md has ${readme.split('\n').length} lines`);
});

test('every guide in docs/ is one click from the README', () => {
  const guides = readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md'));
  const unlinked = guides.filter((name) => !readme.includes(`](docs/${name}`));
  assert.deepEqual(unlinked, []);
});
