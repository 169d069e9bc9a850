/**
 * Which requests take the v0.3 path (SRV-COMPAT-1): `A2A-Version: 0.3`, or no
 * version and an unmistakably v0.3 request (a slash JSON-RPC method or `kind` on the message; a
 * `/v1/...` REST path). Everything else goes to the v1.0 bindings untouched; a version-less
 * JSON-RPC body is authenticated and parsed here once, then handed to the binding that serves it.
 */
import type { RequestHandler } from '../../core/handler/request-handler.js';
import {
  isJsonMediaType,
  readAuthenticatedJson,
  type AuthenticatedBody,
  type HttpReply,
  type HttpRequest,
} from '../http/http-body.js';
import { isV03Version } from './card.js';
import { V03JsonRpcBinding, looksLikeV03JsonRpc } from './jsonrpc-server.js';
import { V03RestBinding } from './rest-server.js';
import { requestedVersion, type V03BindingOptions } from './service.js';

/** What the router needs of the v1.0 JSON-RPC binding. */
export interface V1JsonRpcEndpoint {
  handle(req: HttpRequest): Promise<HttpReply>;
  /** Answers a request already authenticated and parsed. */
  handleValue(req: HttpRequest, body: AuthenticatedBody): Promise<HttpReply>;
  /** The reply to a request refused before its envelope was read. */
  earlyFailure(error: unknown): HttpReply;
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

  /**
   * Answers a request to the JSON-RPC endpoint: v0.3 here, anything else by `v1`. A request
   * without a version is authenticated, read and parsed once here, and the parsed body handed
   * to the binding its shape names (refusals before that are answered in the v1.0 form).
   */
  async jsonRpc(req: HttpRequest, v1: V1JsonRpcEndpoint): Promise<HttpReply> {
    const version = requestedVersion(req);
    if (version !== undefined) return isV03Version(version) ? this.jsonrpc.handle(req) : v1.handle(req);
    if (req.method !== 'POST' || !isJsonMediaType(req.header('content-type'))) return v1.handle(req);
    let body: AuthenticatedBody;
    try {
      body = await readAuthenticatedJson(req, this.options.authenticate, this.options.bodyLimit);
    } catch (error) {
      return v1.earlyFailure(error);
    }
    return looksLikeV03JsonRpc(body.value) ? this.jsonrpc.handleValue(req, body) : v1.handleValue(req, body);
  }
}
