/**
 * Failover to the card's next interface (CLI-CARD-5): the interfaces a client may use, the
 * transports made for them, the one in use, and the interceptor that moves a call on when the
 * interface in use cannot be reached: only when the request was surely not delivered, or when
 * the operation is safe to repeat.
 */
import type { A2AMethod } from '../model/operations.js';
import { isSafeToRetry } from '../model/operations.js';
import type { AgentInterface } from '../model/schema.js';
import type { ResponseOf, Transport } from '../bindings/transport.js';
import {
  A2AInterfacesUnreachableError,
  A2ATransportError,
  type InterfaceFailure,
} from '../errors/client-errors.js';
import { bindingName } from './binding-selection.js';
import {
  openStream,
  reopenBeforeFirstEvent,
  streamReply,
  type ClientCall,
  type ClientInterceptor,
  type ClientNext,
} from './interceptor.js';

/** Network codes that prove a request never left this host or never reached a peer. */
const UNDELIVERED_CODES = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
];

/** grpc-js's text for a call that never got a connection (the request was not sent). */
function grpcNeverConnected(error: A2ATransportError): boolean {
  const details = (error.cause as { details?: unknown } | undefined)?.details;
  return typeof details === 'string' && /^No connection established|^Name resolution failed/.test(details);
}

/**
 * True when `error` proves the request was never delivered (refused connection, unknown host),
 * so that any operation, even one unsafe to repeat, may be sent elsewhere.
 */
export function isUndelivered(error: unknown): boolean {
  if (!(error instanceof A2ATransportError) || error.status !== undefined) return false;
  return UNDELIVERED_CODES.includes(error.networkCode ?? '') || grpcNeverConnected(error);
}

/**
 * True when `error` is a failure of the transport rather than an answer of an A2A server:
 * network errors (gRPC's UNAVAILABLE from the channel included), HTTP errors without an A2A body.
 */
export function isTransportFailure(error: unknown): boolean {
  return error instanceof A2ATransportError;
}

/** The interfaces of one client and the transport made for each, the one in use first. */
export class InterfacePool {
  /** Transports made so far, by index in `interfaces`. */
  private readonly transports = new Map<number, Transport>();
  private active = 0;

  /**
   * @param current the transport in use (for interface 0 when `interfaces` is not empty)
   * @param interfaces the interfaces to fall back on, best first; empty for one transport
   * @param create makes the transport of an interface
   */
  constructor(
    private current: Transport,
    private readonly interfaces: readonly AgentInterface[] = [],
    private readonly create: (iface: AgentInterface) => Promise<Transport> = () =>
      Promise.reject(new Error('no interfaces to fall back on')),
  ) {
    if (interfaces.length > 0) this.transports.set(0, current);
  }

  /** The transport in use: after a fallback, the one that last answered. */
  get transport(): Transport {
    return this.current;
  }

  /** Every transport made so far. */
  all(): Transport[] {
    return [...new Set([this.current, ...this.transports.values()])];
  }

  /**
   * Failover, for an interceptor: `call` goes to the interface in use and, when it fails there,
   * to the next untried one if its failure allows (see {@link isUndelivered}); the interface
   * that answers is kept for later calls. When every interface failed,
   * {@link A2AInterfacesUnreachableError} names each one. With fewer than two interfaces the
   * call just goes to the transport in use.
   */
  route<M extends A2AMethod>(next: ClientNext, call: ClientCall<M>): Promise<ResponseOf<M>> {
    const base = { ...call, transport: this.current };
    if (this.interfaces.length < 2) return next(base);
    return call.operation.streaming ? this.stream(next, base) : this.unary(next, base);
  }

  /** {@link route} as an interceptor. */
  interceptor(): ClientInterceptor {
    return (next) => (call) => this.route(next, call);
  }

  private async unary<M extends A2AMethod>(next: ClientNext, call: ClientCall<M>): Promise<ResponseOf<M>> {
    const round = new Round(this, call);
    for (;;) {
      try {
        const result = await next({ ...call, transport: round.transport });
        this.remember(round.index, round.transport);
        return result;
      } catch (error) {
        if (!(await round.moveOn(error))) throw round.finalError(error);
      }
    }
  }

  private stream<M extends A2AMethod>(next: ClientNext, call: ClientCall<M>): Promise<ResponseOf<M>> {
    const round = new Round(this, call);
    const events = reopenBeforeFirstEvent(
      () => openStream(next({ ...call, transport: round.transport })),
      async (error) => {
        if (await round.moveOn(error)) return true;
        throw round.finalError(error);
      },
      () => this.remember(round.index, round.transport),
    );
    return streamReply<M>(events);
  }

  /** Keeps the interface that answered for later calls. */
  private remember(index: number, transport: Transport): void {
    if (this.interfaces.length === 0 || index === this.active) return;
    this.active = index;
    this.current = transport;
  }

  /** @internal The state a round starts from. */
  start(): { index: number; transport: Transport } {
    return { index: this.active, transport: this.current };
  }

  /** @internal Interface `index`, or undefined. */
  interfaceAt(index: number): AgentInterface | undefined {
    return this.interfaces[index];
  }

  /** @internal How many interfaces there are. */
  get size(): number {
    return this.interfaces.length;
  }

  /** @internal The transport of interface `index`, made on first use. */
  async transportAt(index: number): Promise<Transport> {
    let t = this.transports.get(index);
    if (!t) {
      t = await this.create(this.interfaces[index] as AgentInterface);
      this.transports.set(index, t);
    }
    return t;
  }
}

/** One call's walk over the interfaces: which were tried, and how each failed. */
class Round {
  index: number;
  transport: Transport;
  private readonly tried: InterfaceFailure[] = [];
  private readonly triedIndexes = new Set<number>();
  private readonly safe: boolean;

  constructor(
    private readonly pool: InterfacePool,
    private readonly call: ClientCall,
  ) {
    ({ index: this.index, transport: this.transport } = pool.start());
    // A stream that broke after it began may have delivered its message: the table says
    // SendStreamingMessage is not safe to repeat, so only an undelivered request moves on.
    this.safe = isSafeToRetry(call.method, call.request);
  }

  /** After `error`, moves to the next untried interface; false when none may be tried. */
  async moveOn(error: unknown): Promise<boolean> {
    if (this.call.options.signal?.aborted) return false;
    if (!(isUndelivered(error) || (this.safe && isTransportFailure(error)))) return false;
    this.tried.push({
      binding: this.transport.binding,
      url: this.pool.interfaceAt(this.index)?.url ?? '?',
      error,
    });
    this.triedIndexes.add(this.index);
    for (let next = 0; next < this.pool.size; next++) {
      if (this.triedIndexes.has(next)) continue;
      try {
        this.transport = await this.pool.transportAt(next);
      } catch (failure) {
        // A binding that cannot even be set up here (e.g. gRPC unavailable) counts as tried.
        const iface = this.pool.interfaceAt(next);
        this.tried.push({
          binding: bindingName(iface?.protocolBinding ?? '') ?? '?',
          url: iface?.url ?? '?',
          error: failure,
        });
        this.triedIndexes.add(next);
        continue;
      }
      this.index = next;
      return true;
    }
    return false;
  }

  /**
   * The error a call ends with: after a fallback, a transport failure becomes one error naming
   * every interface tried; an answer from a reachable server is passed on as it is.
   */
  finalError(error: unknown): unknown {
    if (this.call.options.signal?.aborted) return error;
    if (this.tried.length === 0 || !isTransportFailure(error)) return error;
    if (!this.triedIndexes.has(this.index)) {
      this.tried.push({
        binding: this.transport.binding,
        url: this.pool.interfaceAt(this.index)?.url ?? '?',
        error,
      });
    }
    return new A2AInterfacesUnreachableError(this.tried);
  }
}
