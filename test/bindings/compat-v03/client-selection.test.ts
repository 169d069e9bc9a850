/**
 * Binding selection with v0.3 interfaces (issue 14 item 3): v1.0 is preferred wherever it is
 * offered, v0.3 interfaces (JSON-RPC, REST, gRPC) are used when nothing else fits.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { V03JsonRpcTransport } from '../../../src/bindings/compat-v03/jsonrpc-client.js';
import { V03RestTransport } from '../../../src/bindings/compat-v03/rest-client.js';
import { V03GrpcTransport } from '../../../src/bindings/compat-v03/grpc-client.js';
import { createTransport, selectInterface, usableInterfaces } from '../../../src/client/binding-selection.js';
import type { AgentCard, AgentInterface } from '../../../src/model/schema.js';

function card(...supportedInterfaces: AgentInterface[]): AgentCard {
  return {
    name: 'n',
    description: 'd',
    version: '1',
    supportedInterfaces,
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }],
  };
}

const rpc03 = { url: 'http://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' };
const rest03 = { url: 'http://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' };
const grpc03 = { url: 'a:1', protocolBinding: 'GRPC', protocolVersion: '0.3' };
const rest10 = { url: 'http://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' };

describe('selecting among v1.0 and v0.3 interfaces', () => {
  test('v1.0 first, even when the card lists v0.3 first; then v0.3 in card order', () => {
    assert.deepEqual(usableInterfaces(card(rpc03, grpc03, rest10, rest03)), [rest10, rpc03, grpc03, rest03]);
    assert.deepEqual(selectInterface(card(rpc03, rest10)), rest10);
  });

  test('a preferred binding order applies within each version', () => {
    assert.deepEqual(usableInterfaces(card(rpc03, rest03, rest10), ['JSONRPC', 'HTTP+JSON']), [
      rest10,
      rpc03,
      rest03,
    ]);
    assert.deepEqual(selectInterface(card(rpc03, rest03), ['HTTP+JSON']), rest03);
  });

  test('compatV03 false ignores v0.3 entirely', () => {
    assert.throws(() => selectInterface(card(grpc03), undefined, false), /speaks only A2A 0\.3/);
    assert.deepEqual(usableInterfaces(card(rpc03, rest10), undefined, false), [rest10]);
  });

  test('v0.3 interfaces get the v0.3 transports (behind the tenant wrapper)', async () => {
    const rpc = (await createTransport(rpc03)) as unknown as { inner: unknown };
    const rest = (await createTransport(rest03)) as unknown as { inner: unknown };
    const grpc = (await createTransport(grpc03)) as unknown as { inner: V03GrpcTransport };
    assert.ok(rpc.inner instanceof V03JsonRpcTransport);
    assert.ok(rest.inner instanceof V03RestTransport);
    assert.ok(grpc.inner instanceof V03GrpcTransport);
    await grpc.inner.close();
  });
});
