/**
 * Issue 27, CLI-AUTH-3: the client's credentials go only to interfaces the caller vouched for.
 * A "home" server on 127.0.0.1 serves a card naming interfaces of a "foreign" A2A server on
 * other ports (other origins), which records every credential it receives. An unverified card
 * gets the call refused with A2AUntrustedInterfaceError and nothing is sent to the foreign
 * server (the auth handler is not even asked); an origin listed in `credentialOrigins`, or a
 * card whose signature verified, gets the credentials. Both bindings: JSON-RPC and gRPC.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { Command } from 'commander';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { AgentCard } from '../../src/model/schema.js';
import { signAgentCard } from '../../src/server/card/sign.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import { registerClientCommands } from '../../src/cli/client-commands.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import {
  A2AClient,
  A2AUntrustedInterfaceError,
  JsonRpcTransport,
  cardSignatureVerifier,
  credentialOrigin,
  customAuth,
} from '../../src/client/index.js';

const skill = { id: 's', name: 'S', description: 'S', tags: ['t'] };

/** What the foreign server received: one entry per authenticated request. */
interface Seen {
  authorization: string | undefined;
  apiKey: string | undefined;
}

let foreign: A2AServer;
let foreignUrl: string;
let grpcTarget: string;
const seen: Seen[] = [];
/** The card the home server serves: set per test. */
let served: unknown;
let homeUrl: string;
let home: Server;

before(async () => {
  foreign = createA2AServer({
    agent: async (_ctx, task) => task.complete('ok'),
    card: { name: 'foreign', description: 'Records credentials', version: '1.0.0', skills: [skill] },
    store: 'memory',
    grpc: { port: 0, host: '127.0.0.1' },
    authenticate: (request) => {
      seen.push({
        authorization: request.headers.get('authorization'),
        apiKey: request.headers.get('x-api-key'),
      });
      return { id: 'anyone' };
    },
  });
  const info = await foreign.listen(0, '127.0.0.1');
  foreignUrl = info.url;
  grpcTarget = `127.0.0.1:${info.grpcPort}`;
  home = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
  });
  await new Promise<void>((resolve) => home.listen(0, '127.0.0.1', resolve));
  homeUrl = `http://127.0.0.1:${(home.address() as AddressInfo).port}`;
});
after(async () => {
  home.closeAllConnections();
  await new Promise((resolve) => home.close(resolve));
  await foreign.close();
});

/** A card naming the foreign server's interfaces only. */
function foreignCard(): AgentCard {
  return {
    name: 'home',
    description: 'Its interfaces are elsewhere',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${foreignUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: grpcTarget, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [skill],
  };
}

describe('credentials of an unverified card', () => {
  before(() => {
    served = foreignCard();
  });

  for (const binding of ['JSONRPC', 'GRPC'] as const) {
    test(`${binding}: a card naming another origin is refused, and that origin receives nothing`, async (t) => {
      seen.length = 0;
      for (const auth of [{ bearer: 'secret-token' }, { apiKey: 'secret-key' }]) {
        const client = await A2AClient.connect(homeUrl, { auth, bindings: [binding], retry: false });
        t.after(() => client.close());
        await assert.rejects(client.listTasks(), (error: unknown) => {
          assert.ok(error instanceof A2AUntrustedInterfaceError, String(error));
          assert.equal(error.origin, credentialOrigin(binding === 'GRPC' ? grpcTarget : foreignUrl));
          assert.match(error.message, /credentialOrigins/);
          return true;
        });
      }
      assert.deepEqual(seen, [], 'the foreign server received a request');
    });
  }

  test('the auth handler is not even asked for the refused call (no token is fetched)', async (t) => {
    seen.length = 0;
    const asked: string[] = [];
    const auth = customAuth((ctx) => {
      asked.push(ctx.method);
      return { headers: { authorization: 'Bearer secret-token' } };
    });
    const client = await A2AClient.connect(homeUrl, { auth, retry: false });
    t.after(() => client.close());
    await assert.rejects(client.getTask('t1'), A2AUntrustedInterfaceError);
    assert.deepEqual(asked, ['GetAgentCard'], 'asked for more than the card fetch (to the origin given)');
    assert.deepEqual(seen, []);
  });

  test('a card object lends no origin; credentialOrigins does', async (t) => {
    seen.length = 0;
    const refused = await A2AClient.connect(foreignCard(), {
      auth: { bearer: 'secret-token' },
      retry: false,
    });
    t.after(() => refused.close());
    await assert.rejects(refused.listTasks(), A2AUntrustedInterfaceError);
    assert.deepEqual(seen, []);
    const listed = await A2AClient.connect(foreignCard(), {
      auth: { bearer: 'secret-token' },
      credentialOrigins: [foreignUrl],
    });
    t.after(() => listed.close());
    assert.ok(Array.isArray((await listed.listTasks()).tasks));
    assert.deepEqual(seen, [{ authorization: 'Bearer secret-token', apiKey: undefined }]);
  });

  for (const binding of ['JSONRPC', 'GRPC'] as const) {
    test(`${binding}: an origin listed in credentialOrigins gets the credentials`, async (t) => {
      seen.length = 0;
      const origin = binding === 'GRPC' ? grpcTarget : new URL(foreignUrl).origin;
      const client = await A2AClient.connect(homeUrl, {
        auth: { bearer: 'secret-token' },
        bindings: [binding],
        credentialOrigins: [origin],
      });
      t.after(() => client.close());
      assert.ok(Array.isArray((await client.listTasks()).tasks));
      assert.deepEqual(seen, [{ authorization: 'Bearer secret-token', apiKey: undefined }]);
    });
  }

  test('credentialOrigins entries that are no origin are refused', async () => {
    await assert.rejects(A2AClient.connect(homeUrl, { credentialOrigins: ['https://'] }), TypeError);
  });
});

describe('credentials of a verified card', () => {
  let jwk: JWK;
  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    jwk = { ...(await exportJWK(publicKey)), kid: 'home-1', alg: 'ES256' };
    served = await signAgentCard(foreignCard(), { privateKey, alg: 'ES256', kid: 'home-1' });
  });

  for (const binding of ['JSONRPC', 'GRPC'] as const) {
    test(`${binding}: the interfaces a verified card names get the credentials`, async (t) => {
      seen.length = 0;
      const client = await A2AClient.connect(homeUrl, {
        auth: { apiKey: 'secret-key' },
        bindings: [binding],
        card: { verify: cardSignatureVerifier({ keys: [jwk] }) },
      });
      t.after(() => client.close());
      assert.ok(Array.isArray((await client.listTasks()).tasks));
      assert.deepEqual(seen, [{ authorization: undefined, apiKey: 'secret-key' }]);
    });
  }

  test('the same signed card without a verify hook is refused', async (t) => {
    seen.length = 0;
    const client = await A2AClient.connect(homeUrl, { auth: { apiKey: 'secret-key' }, retry: false });
    t.after(() => client.close());
    await assert.rejects(client.listTasks(), A2AUntrustedInterfaceError);
    assert.deepEqual(seen, []);
  });
});

describe('credentials of the caller’s own endpoints', () => {
  test('the origin connected to, and a transport the caller made, get the credentials', async (t) => {
    seen.length = 0;
    // The foreign server's own card names itself: the origin the client was given.
    const client = await A2AClient.connect(foreignUrl, { auth: { bearer: 'own-token' } });
    t.after(() => client.close());
    assert.ok(Array.isArray((await client.listTasks()).tasks));
    const own = new A2AClient(new JsonRpcTransport(`${foreignUrl}/a2a/jsonrpc`), undefined, {
      auth: { bearer: 'own-token' },
    });
    t.after(() => own.close());
    assert.ok(Array.isArray((await own.listTasks()).tasks));
    assert.deepEqual(seen, [
      { authorization: 'Bearer own-token', apiKey: undefined },
      { authorization: 'Bearer own-token', apiKey: undefined },
    ]);
  });

  test('credentialOrigin normalizes what it compares', () => {
    assert.equal(credentialOrigin('https://Agent.Example.com:443/a2a'), 'https://agent.example.com');
    assert.equal(credentialOrigin('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
    assert.equal(credentialOrigin('Localhost:50051'), 'grpc://localhost:50051');
    assert.equal(credentialOrigin('grpc://[::1]:50051'), 'grpc://[::1]:50051');
    assert.notEqual(credentialOrigin('http://h:443'), credentialOrigin('https://h'));
    assert.equal(credentialOrigin('not a url'), undefined);
  });
});

describe('the a2a CLI', () => {
  before(() => {
    served = foreignCard();
  });

  async function a2a(...args: string[]) {
    const err: string[] = [];
    let code = -1;
    const program = new Command().exitOverride();
    registerClientCommands(program, {
      out: () => undefined,
      err: (l) => err.push(l),
      setExitCode: (c) => (code = c),
    });
    await program.parseAsync(['node', 'a2a', ...args]);
    return { code, err: err.join('\n') };
  }

  test('--token goes to the agent URL’s origin and to each --credential-origin, nowhere else', async () => {
    seen.length = 0;
    const refused = await a2a('list', homeUrl, '--token', 'cli-token');
    assert.equal(refused.code, EXIT.protocol);
    assert.match(refused.err, /A2AUntrustedInterfaceError: .*--credential-origin/);
    assert.deepEqual(seen, []);
    const listed = await a2a('list', homeUrl, '--token', 'cli-token', '--credential-origin', foreignUrl);
    assert.equal(listed.code, EXIT.ok, listed.err);
    const own = await a2a('list', foreignUrl, '--token', 'cli-token');
    assert.equal(own.code, EXIT.ok, own.err);
    assert.deepEqual(seen, [
      { authorization: 'Bearer cli-token', apiKey: undefined },
      { authorization: 'Bearer cli-token', apiKey: undefined },
    ]);
    const bad = await a2a('list', homeUrl, '--token', 'cli-token', '--credential-origin', 'https://');
    assert.equal(bad.code, EXIT.usage);
  });
});
