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
 * site-local, multicast and documentation. IPv6 forms that carry an IPv4 address (mapped,
 * translated, compatible, NAT64, 6to4, Teredo) are checked as that address; the NAT64 local-use
 * prefix is refused whole.
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
  const groups = ipv6Groups(address);
  if (!groups) return `${address} is not an IPv6 address this server can read`;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) {
    return `${address} is in the NAT64 local-use prefix 64:ff9b:1::/48 (a translator of this network)`;
  }
  for (const { v4, form } of embeddedIpv4(groups)) {
    const reason = refusedAddressReason(v4);
    if (reason) return `${address} carries ${v4} (${form}): ${reason}`;
  }
  return REFUSED.check(address, 'ipv6')
    ? `${address} is a loopback, unique-local, link-local, multicast or reserved address`
    : undefined;
}

/** The eight 16-bit groups of an IPv6 address (a zone id dropped, a dotted IPv4 tail read). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const bytes = dotted[2]!.split('.').map(Number);
    tail.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!);
    text = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (h: string): number[] => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  const missing = 8 - head.length - rest.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...rest, ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined;
}

const v4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address leads to, by the forms that carry one: IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`, deprecated
 * but still routed by some stacks), NAT64 well-known (`64:ff9b::/96`), 6to4 (`2002::/16`, the
 * IPv4 address in bits 16-47) and Teredo (`2001::/32`: the server in bits 32-63 and the client,
 * inverted, in the last 32 bits). A packet to any of them may end at that IPv4 address.
 */
function embeddedIpv4(g: number[]): { v4: string; form: string }[] {
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const last = v4Of(g[6]!, g[7]!);
  if (zeros(0, 5) && g[5] === 0xffff) return [{ v4: last, form: 'IPv4-mapped' }];
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return [{ v4: last, form: 'IPv4-translated' }];
  // `::` and `::1` are not IPv4-compatible addresses: the list names them for what they are.
  if (zeros(0, 6) && (g[6] !== 0 || g[7]! > 1)) return [{ v4: last, form: 'IPv4-compatible' }];
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [{ v4: last, form: 'NAT64' }];
  if (g[0] === 0x2002) return [{ v4: v4Of(g[1]!, g[2]!), form: '6to4' }];
  if (g[0] === 0x2001 && g[1] === 0) {
    return [
      { v4: v4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff), form: 'Teredo client' },
      { v4: v4Of(g[2]!, g[3]!), form: 'Teredo server' },
    ];
  }
  return [];
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
