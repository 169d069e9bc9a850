/** The root entry `a2a-kit`: every area, the echo agent as an example, no bench or CLI internals. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as root from '../src/index.js';

test('a2a-kit exports the areas and the echo agent, not the bench agent or the CLI registry', () => {
  for (const name of [
    'createA2AServer',
    'A2AClient',
    'A2AError',
    'A2AConfigError',
    'TaskState',
    'echoExecutor',
  ]) {
    assert.ok(name in root, name);
  }
  for (const name of ['benchExecutor', 'benchCard', 'BENCH_ARTIFACT_ID', 'builtInAgents', 'GrpcBinding']) {
    assert.ok(!(name in root), name);
  }
});
