/** SRV-PUSH-6: which webhook addresses are refused, before and after DNS resolution. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseWebhookUrl,
  refusedAddressReason,
  resolveWebhook,
  WebhookAddressError,
} from '../../../src/server/push/address-guard.js';
import { RetryPolicy } from '../../../src/core/push/retry-policy.js';

describe('webhook address guard', () => {
  test('refused and accepted addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.9.9.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.254',
      '169.254.169.254',
      '169.254.1.1',
      '0.0.0.0',
      '224.0.0.251',
      '239.1.1.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
    ]) {
      assert.ok(refusedAddressReason(address), `${address} refused`);
    }
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(refusedAddressReason(address), undefined, `${address} accepted`);
    }
  });

  test('issue 27: IPv6 forms that carry a local or private IPv4 address are refused', async () => {
    const refused: [string, RegExp][] = [
      ['::7f00:1', /127\.0\.0\.1 \(IPv4-compatible\)/],
      ['::127.0.0.1', /IPv4-compatible/],
      ['::a9fe:a9fe', /169\.254\.169\.254/],
      ['::ffff:0:7f00:1', /IPv4-translated/],
      ['0:0:0:0:0:ffff:7f00:1', /IPv4-mapped/],
      ['64:ff9b::7f00:1', /NAT64/],
      ['64:ff9b::192.168.0.1', /NAT64/],
      ['64:ff9b:1::a00:1', /local-use/],
      ['64:ff9b:1:ffff::8.8.8.8', /local-use/],
      ['2002:7f00:1::1', /127\.0\.0\.1 \(6to4\)/],
      ['2002:c0a8:101::1', /192\.168\.1\.1 \(6to4\)/],
      ['2002:a9fe:a9fe::', /169\.254\.169\.254 \(6to4\)/],
      // Teredo: the client's address is stored inverted in the last 32 bits.
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', /127\.0\.0\.1 \(Teredo client\)/],
      ['2001:0:4136:e378:8000:63bf:3f57:fefe', /192\.168\.1\.1 \(Teredo client\)/],
      ['2001:0:a00:1:8000:63bf:f7f7:f7f7', /10\.0\.0\.1 \(Teredo server\)/],
      ['fe80::1%eth0', /link-local/],
    ];
    for (const [address, why] of refused) {
      assert.match(refusedAddressReason(address) ?? 'accepted', why, address);
      // The same literal as a webhook URL is refused when the config is stored.
      if (!address.includes('%')) {
        await assert.rejects(
          resolveWebhook(parseWebhookUrl(`https://[${address}]/hook`, {}), {}),
          WebhookAddressError,
          address,
        );
      }
    }
    for (const address of [
      '::8.8.8.8',
      '64:ff9b::8.8.8.8',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
      '2a00:1450:4001:80b::200e',
    ]) {
      assert.equal(refusedAddressReason(address), undefined, `${address} accepted`);
    }
  });

  test('a name is refused when any of its addresses is; the allow-list skips the check', async () => {
    const resolve = (addresses: string[]) => () =>
      Promise.resolve(
        addresses.map((address) => ({
          address,
          family: address.includes(':') ? (6 as const) : (4 as const),
        })),
      );
    const url = new URL('https://hooks.example.com/x');
    await assert.rejects(
      resolveWebhook(url, {}, resolve(['93.184.216.34', '10.0.0.7'])),
      (e: unknown) => e instanceof WebhookAddressError && /10\.0\.0\.7/.test(e.message) && !e.transient,
    );
    assert.deepEqual(await resolveWebhook(url, {}, resolve(['93.184.216.34'])), {
      address: '93.184.216.34',
      family: 4,
    });
    assert.deepEqual(
      await resolveWebhook(url, { allowHosts: ['HOOKS.example.com'] }, resolve(['10.0.0.7'])),
      {
        address: '10.0.0.7',
        family: 4,
      },
    );
    await assert.rejects(
      resolveWebhook(url, {}, () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }))),
      (e: unknown) =>
        e instanceof WebhookAddressError && e.transient && /does not resolve \(ENOTFOUND\)/.test(e.message),
    );
    assert.deepEqual(await resolveWebhook(new URL('http://[::1]:8080/'), { allowHosts: ['[::1]'] }), {
      address: '::1',
      family: 6,
    });
  });

  test('https is required unless allowed; credentials in the URL are refused', () => {
    assert.throws(() => parseWebhookUrl('http://example.com/', {}), /must use https/);
    assert.equal(parseWebhookUrl('http://example.com/', { allowHttp: true }).protocol, 'http:');
    assert.throws(() => parseWebhookUrl('https://u:p@example.com/', {}), /must not carry credentials/);
    assert.throws(() => parseWebhookUrl('not a url', {}), /not an absolute URL/);
    assert.throws(() => parseWebhookUrl(`https://example.com/${'x'.repeat(2100)}`, {}), /longer than 2048/);
  });
});

describe('push retry policy', () => {
  test('SRV-PUSH-4: exponential backoff with jitter in the upper half, then a dead letter', () => {
    const policy = new RetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, maxAttempts: 4, maxAgeMs: 60_000 });
    assert.equal(
      policy.delayMs(1, () => 0),
      50,
    );
    assert.equal(
      policy.delayMs(1, () => 1),
      100,
    );
    assert.equal(
      policy.delayMs(3, () => 1),
      400,
    );
    assert.equal(
      policy.delayMs(10, () => 1),
      1000,
    );
    const delivery = {
      id: 'd',
      tenant: '',
      owner: 'o',
      taskId: 't',
      configId: 'c',
      seq: 1,
      payload: '{}',
      state: 'pending' as const,
      attempts: 0,
      createdAtMs: 0,
      nextAttemptAtMs: 0,
    };
    assert.equal(policy.afterFailure(delivery, 'HTTP 500', 0).outcome, 'retry');
    assert.equal(policy.afterFailure({ ...delivery, attempts: 3 }, 'HTTP 500', 0).outcome, 'dead');
    const old = policy.afterFailure(delivery, 'HTTP 500', 60_000);
    assert.equal(old.outcome, 'dead');
    assert.match(old.outcome === 'dead' ? old.error : '', /older than 60000 ms/);
  });
});

describe('push config check', () => {
  test('SRV-PUSH-8: a name resolving to a refused address is refused; one that does not resolve yet is left to delivery', async () => {
    const { checkPushConfig } = await import('../../../src/server/push/config-check.js');
    const { InvalidParamsError } = await import('../../../src/errors/a2a-error.js');
    const toPrivate = () => Promise.resolve([{ address: '192.168.7.7', family: 4 as const }]);
    await assert.rejects(
      checkPushConfig({ url: 'https://intranet.example/hook' }, 'config', {}, toPrivate),
      (e: unknown) =>
        e instanceof InvalidParamsError && /config\.url is refused: .*192\.168\.7\.7/.test(e.message),
    );
    const unknown = () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    await checkPushConfig({ url: 'https://not-yet.example/hook' }, 'config', {}, unknown);
  });
});
