/** A2A-Version and A2A-Extensions handling (SRV-VER, SRV-EXT, N8, N9). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtensionSupportRequiredError, VersionNotSupportedError } from '../../src/errors/a2a-error.js';
import type { AgentCard } from '../../src/model/schema.js';
import {
  checkRequiredExtensions,
  parseExtensions,
  resolveVersion,
  versionFromQuery,
} from '../../src/bindings/http/service-params.js';

describe('resolveVersion', () => {
  test('1.0 and 1.0.x are served as 1.0 (SRV-VER-4)', () => {
    for (const v of ['1.0', '1.0.0', '1.0.7', ' 1.0 ']) assert.equal(resolveVersion(v, false), '1.0');
  });

  test('absent: 1.0 when the request is unmistakably v1.0, else 0.3 (N9)', () => {
    assert.equal(resolveVersion(undefined, true), '1.0');
    assert.equal(resolveVersion('', true), '1.0');
    assert.throws(() => resolveVersion(undefined, false), VersionNotSupportedError);
  });

  test('0.3 and anything else: VersionNotSupportedError with supportedVersions', () => {
    for (const v of ['0.3', '2.0', '1', 'x', '1.1']) {
      assert.throws(
        () => resolveVersion(v, true),
        (e: unknown) => e instanceof VersionNotSupportedError && e.metadata.supportedVersions === '1.0',
      );
    }
  });

  test('identical repeats (joined `1.0, 1.0`) are one version; different ones stay an error', () => {
    assert.equal(resolveVersion('1.0, 1.0', false), '1.0');
    assert.equal(resolveVersion('1.0,1.0,1.0', false), '1.0');
    assert.throws(() => resolveVersion('1.0, 0.3', true), VersionNotSupportedError);
    assert.throws(() => resolveVersion('1.0, 1.0.1', true), VersionNotSupportedError);
  });

  test('versionFromQuery matches the name case-insensitively (N8)', () => {
    assert.equal(versionFromQuery('a2a-version=1.0'), '1.0');
    assert.equal(versionFromQuery('pageSize=3&A2A-Version=0.3'), '0.3');
    assert.equal(versionFromQuery('xa2a-version=1.0'), undefined);
    assert.equal(versionFromQuery(''), undefined);
  });
});

describe('extensions', () => {
  test('comma lists and repeated values are merged, trimmed and deduplicated (SRV-EXT-2)', () => {
    assert.deepEqual(parseExtensions(undefined), []);
    assert.deepEqual(parseExtensions('a, b,,c'), ['a', 'b', 'c']);
    assert.deepEqual(parseExtensions(['a,b', ' b ', 'd']), ['a', 'b', 'd']);
  });

  const card = {
    capabilities: {
      extensions: [{ uri: 'urn:req', required: true }, { uri: 'urn:opt' }],
    },
  } as unknown as AgentCard;

  test('a required extension not requested: ExtensionSupportRequiredError with metadata.extensions (SRV-EXT-3)', () => {
    assert.throws(
      () => checkRequiredExtensions(card, ['urn:opt'], new Set()),
      (e: unknown) => e instanceof ExtensionSupportRequiredError && e.metadata.extensions === 'urn:req',
    );
  });

  test('a requested required extension is activated', () => {
    const activated = new Set<string>();
    checkRequiredExtensions(card, ['urn:req', 'urn:unknown'], activated);
    assert.deepEqual([...activated], ['urn:req']);
  });
});
