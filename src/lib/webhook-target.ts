/**
 * Where a webhook URL's host points, checked against docs/webhooks.md#targets after DNS resolution: in live mode (and
 * in
 * sandbox unless configuration allows private targets) every address the host resolves to must be a
 * public unicast address, never loopback, private, link-local, multicast or otherwise reserved.
 * The delivery then connects only to the addresses checked here (no second lookup an attacker could
 * answer differently).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A URL whose host may not be used; the message names the host and what it points to. */
export class WebhookTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookTargetError';
  }
}

/** Resolves a host name to all its addresses (default: the system resolver, `dns.lookup` with `all`). */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver, the one Node's HTTP client would use. */
export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
};

/**
 * The IPv4 address an IPv4-compatible IPv6 address (`::a.b.c.d`, `::/96`, deprecated by RFC 4291 and
 * never routed) carries, or undefined for other addresses. `::` and `::1` are not taken as such.
 */
function ipv4CompatibleOf(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  if (parts.slice(0, 6).some((part) => part !== 0)) return undefined;
  const [high = 0, low = 0] = parts.slice(6);
  if (high === 0 && low <= 1) return undefined;
  return ipaddr.IPv4.parse(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`);
}

/**
 * An IPv6 address with a dotted IPv4 tail in its canonical form (`::8.8.8.8` → `::808:808`), as the
 * URL parser writes it: ipaddr.js reads `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`. Other
 * addresses are returned as they are.
 */
function canonicalIpv6(address: string): string {
  if (isIP(address) !== 6 || !address.includes('.')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}

/**
 * Why `address` is not a public target, or undefined when it is a public unicast address.
 * IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry;
 * IPv4-compatible ones (`::7f00:1`, written `[::127.0.0.1]` in a URL) are refused whatever they
 * carry (the message names a private or loopback address carried), like the other IPv6 forms that
 * embed IPv4 addresses (NAT64, 6to4, Teredo, IPv4-translated), which ipaddr.js reports as reserved.
 */
export function nonPublicReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.process(canonicalIpv6(address));
  if (parsed.kind() === 'ipv6') {
    const carried = ipv4CompatibleOf(parsed as ipaddr.IPv6);
    if (carried) {
      const inner = nonPublicReason(carried.toString());
      return `an IPv4-compatible IPv6 address (${carried.toString()}${inner ? `, ${inner}` : ''})`;
    }
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return RANGE_WORDS[range] ?? `a reserved address (${range})`;
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks where `url` points (docs/webhooks.md#targets).
 * @param allowPrivate true where private targets are allowed (sandbox, by configuration): nothing is
 *   checked and undefined is returned, so the connection resolves the host as usual
 * @returns the checked addresses to connect to (an IP literal host gives itself)
 * @throws WebhookTargetError when the host does not resolve or any address is not public
 */
export async function resolveWebhookTarget(
  url: URL,
  allowPrivate: boolean,
  resolve: HostResolver = systemResolver,
): Promise<LookupAddress[] | undefined> {
  if (allowPrivate) return undefined;
  const host = bareHost(url);
  const literal = isIP(host);
  if (literal !== 0) {
    const reason = nonPublicReason(host);
    if (reason) throw new WebhookTargetError(`url host ${host} is ${reason}; webhooks need a public host`);
    return [{ address: host, family: literal }];
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new WebhookTargetError(`url host ${host} could not be resolved`);
  }
  if (addresses.length === 0) throw new WebhookTargetError(`url host ${host} could not be resolved`);
  for (const { address } of addresses) {
    const reason = nonPublicReason(address);
    if (reason)
      throw new WebhookTargetError(`url host ${host} resolves to ${address}, ${reason}; webhooks need a public host`);
  }
  return addresses;
}
