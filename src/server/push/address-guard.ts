/**
 * Webhook address safety (spec §13.2, SRV-PUSH-6): a webhook URL is checked when a config is
 * stored and again before every delivery, after DNS resolution; the connection then goes to
 * the address that was checked (see webhook-request.ts), so a name that resolves elsewhere
 * between the check and the connect (DNS rebinding) cannot reach a refused address.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** What the operator allows beyond the safe defaults. */
export interface AddressPolicy {
  /**
   * Hosts (names or IP literals, compared case-insensitively with the URL's host) whose
   * addresses are not checked: a webhook on a private network or on loopback in tests.
   */
  allowHosts?: readonly string[];
  /** Accept `http:` webhook URLs (the default requires `https:`). @default false */
  allowHttp?: boolean;
}

/** A webhook URL that may not be used; the message says why. */
export class WebhookAddressError extends Error {
  /** `transient`: the host did not resolve (worth another try); otherwise the address is refused. */
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
    this.name = 'WebhookAddressError';
  }
}

/** An address a webhook connection may go to. */
export interface CheckedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Refused ranges: "this network", private (RFC 1918), CGNAT, loopback, link-local (with the
 * cloud metadata address 169.254.169.254), IETF protocol assignments, benchmarking,
 * documentation, multicast, reserved and broadcast; on IPv6 the unspecified and loopback
 * addresses, unique-local (fc00::/7, with the AWS metadata address fd00:ec2::254), link-local,
 * site-local, multicast and documentation. IPv4-mapped and NAT64 addresses are checked as the
 * IPv4 address they carry.
 */
const REFUSED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  REFUSED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  REFUSED.addSubnet(net, prefix, 'ipv6');
}

/** Why `address` may not be a webhook target, or undefined when it may. */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 4) {
    return REFUSED.check(address, 'ipv4')
      ? `${address} is a loopback, private, link-local, shared or reserved address`
      : undefined;
  }
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) {
    const reason = refusedAddressReason(embedded);
    return reason ? `${address} carries ${embedded}: ${reason}` : undefined;
  }
  return REFUSED.check(address, 'ipv6')
    ? `${address} is a loopback, unique-local, link-local, multicast or reserved address`
    : undefined;
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or NAT64 (`64:ff9b::/96`) address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const match = /^(?:::ffff:(?:0:)?|64:ff9b::)(.+)$/.exec(lower);
  if (!match) return undefined;
  const rest = match[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!hex) return undefined;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Checks a webhook URL without resolving it: scheme, form, length; returns the parsed URL. */
export function parseWebhookUrl(raw: string, policy: AddressPolicy): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new WebhookAddressError(`the webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookAddressError('the webhook URL is not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new WebhookAddressError(
      url.protocol === 'http:'
        ? 'the webhook URL must use https (this server does not allow http webhooks)'
        : `the webhook URL must use https, not ${url.protocol}`,
    );
  }
  if (url.username || url.password) {
    throw new WebhookAddressError(
      'the webhook URL must not carry credentials; use the config authentication',
    );
  }
  return url;
}

/** The URL's host as compared with `allowHosts` (brackets of an IPv6 literal removed). */
export function hostOf(url: URL): string {
  const host = url.hostname.toLowerCase();
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** True when the operator allow-listed the URL's host. */
export function isAllowedHost(url: URL, policy: AddressPolicy): boolean {
  const host = hostOf(url);
  return (policy.allowHosts ?? []).some((allowed) => allowed.toLowerCase().replace(/^\[|\]$/g, '') === host);
}

/** Resolves a host name; tests and embedders may replace it. */
export type HostResolver = (host: string) => Promise<CheckedAddress[]>;

/** Longest wait for the system resolver before a lookup counts as failed (and is retried later). */
const LOOKUP_TIMEOUT_MS = 5000;

/** The system resolver (`getaddrinfo`, as node:http would use), every address, at most 5 s. */
export const systemResolver: HostResolver = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })),
      LOOKUP_TIMEOUT_MS,
    );
  });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Resolves the URL's host and checks every address it has (a name with one refused address is
 * refused: which one a connection would take is not ours to choose). Returns the first address,
 * to which the connection must go. Allow-listed hosts are resolved but not checked.
 */
export async function resolveWebhook(
  url: URL,
  policy: AddressPolicy,
  resolve: HostResolver = systemResolver,
): Promise<CheckedAddress> {
  const literal = literalWebhookAddress(url, policy);
  if (literal) return literal;
  const host = hostOf(url);
  let addresses: CheckedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    throw new WebhookAddressError(
      `the webhook host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`,
      true,
    );
  }
  if (addresses.length === 0) throw new WebhookAddressError(`the webhook host ${host} has no address`);
  if (!isAllowedHost(url, policy)) for (const { address } of addresses) check(host, address);
  return addresses[0]!;
}

/**
 * {@link resolveWebhook} without the wait, for a URL whose host is an IP address: that
 * address, checked; undefined when the host is a name (it must be resolved).
 */
export function literalWebhookAddress(url: URL, policy: AddressPolicy): CheckedAddress | undefined {
  const host = hostOf(url);
  const family = isIP(host);
  if (family === 0) return undefined;
  if (!isAllowedHost(url, policy)) check(host, host);
  return { address: host, family: family === 6 ? 6 : 4 };
}

/** Throws when `address` (of `host`) may not be a webhook target. */
function check(host: string, address: string): void {
  const reason = refusedAddressReason(address);
  if (reason) {
    throw new WebhookAddressError(
      `the webhook host ${host} is refused: ${reason} (an operator may allow-list the host with push.allowHosts)`,
    );
  }
}
