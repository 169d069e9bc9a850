/**
 * Which requests take the v0.3 path (SRV-COMPAT-1): `A2A-Version: 0.3`, or no
 * version and an unmistakably v0.3 request (a slash JSON-RPC method or `kind` on the message; a
 * `/v1/...` REST path). Everything else goes to the v1.0 bindings untouched; a version-less
 * JSON-RPC body is parsed here once to decide and then replayed to the v1.0 binding.
 */
import type { RequestHandler } from '../../core/handler/request-handler.js';
import { BodyTooLargeError, isJsonMediaType, type HttpReply, type HttpRequest } from '../http/http-body.js';
import { isV03Version } from './card.js';
import { V03JsonRpcBinding, looksLikeV03JsonRpc } from './jsonrpc-server.js';
import { V03RestBinding } from './rest-server.js';
import { requestedVersion, type V03BindingOptions } from './service.js';

/** A request whose body was already read: `readBody` gives it back (or the error it failed with). */
function replay(req: HttpRequest, body: Buffer | Error): HttpRequest {
  return {
    method: req.method,
    path: req.path,
    query: req.query,
    header: (name) => req.header(name),
    headerValues: (name) => req.headerValues(name),
    readBody: (limit) => {
      if (body instanceof Error) return Promise.reject(body);
      return body.length > limit ? Promise.reject(new BodyTooLargeError(limit)) : Promise.resolve(body);
    },
    authRequest: () => req.authRequest(),
    ...(req.signal ? { signal: req.signal } : {}),
  };
}

/** The v0.3 bindings and the routing in front of them. */
export class V03Router {
  readonly jsonrpc: V03JsonRpcBinding;
  readonly rest: V03RestBinding;

  constructor(
    handler: RequestHandler,
    private readonly options: V03BindingOptions,
  ) {
    this.jsonrpc = new V03JsonRpcBinding(handler, options);
    this.rest = new V03RestBinding(handler, options);
  }

  /**
   * True when a REST request (`path` below the REST root) is v0.3: `A2A-Version: 0.3`, or no
   * version and a `/v1/...` path. With `A2A-Version: 1.0`, `/v1/...` is tenant `v1`.
   */
  isRestV03(req: HttpRequest, path: string): boolean {
    const version = requestedVersion(req);
    return version === undefined ? path.startsWith('/v1/') : isV03Version(version);
  }

  /** Answers a request to the JSON-RPC endpoint: v0.3 here, anything else by `v1`. */
  async jsonRpc(req: HttpRequest, v1: (req: HttpRequest) => Promise<HttpReply>): Promise<HttpReply> {
    const version = requestedVersion(req);
    if (version !== undefined) return isV03Version(version) ? this.jsonrpc.handle(req) : v1(req);
    if (req.method !== 'POST' || !isJsonMediaType(req.header('content-type'))) return v1(req);
    let body: Buffer;
    try {
      body = await req.readBody(this.options.bodyLimit);
    } catch (error) {
      return v1(replay(req, error instanceof Error ? error : new Error(String(error))));
    }
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return v1(replay(req, body));
    }
    return looksLikeV03JsonRpc(value) ? this.jsonrpc.handleValue(req, value) : v1(replay(req, body));
  }
}
