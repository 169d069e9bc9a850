/**
 * The ceiling: a bare node:http server that reads the request body and answers with fixed
 * bytes (the JSON-RPC echo response a2a-kit gave, passed in BENCH_BARE_BODY).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runChild } from './child.js';

const body = Buffer.from(process.env.BENCH_BARE_BODY ?? '{"jsonrpc":"2.0","id":1,"result":{}}');

runChild(async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
});
