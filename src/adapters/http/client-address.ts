import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/*
 * The client's address, for the failed-authentication limit and the request log.
 * Behind a load balancer every request comes from the balancer; X-Forwarded-For names the client, but
 * anyone can send that header, so it is believed only hop by hop: walking from the right (the entry the
 * nearest proxy appended), each entry is taken while the address that handed it over is a trusted proxy.
 * Entries a client prepends itself sit left of the first untrusted address and are never reached.
 * A list of addresses rather than a hop count: a count would also believe a client that reaches the
 * instance directly, past the balancer.
 */

/** TRUSTED_PROXIES as a BlockList; undefined (X-Forwarded-For ignored) when the list is empty. */
export function trustedProxyList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/** The peer address, or with trusted proxies the first untrusted address walking X-Forwarded-For from the right. */
export function clientAddress(req: IncomingMessage, trusted: BlockList | undefined): string {
  const peer = unmapped(req.socket.remoteAddress ?? '');
  if (trusted === undefined) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  if (forwarded === undefined || !isTrusted(trusted, peer)) return peer;
  // Node joins repeated X-Forwarded-For headers with ", ", so one split reads them all in order.
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
  let address = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = unmapped(hops[i]!.trim());
    // Not an address: a trusted proxy would never append one, so stop at the last hop it vouched for.
    if (isIP(hop) === 0) return address;
    address = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return address;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

// A dual-stack listener reports IPv4 clients as ::ffff:a.b.c.d; the limit and the log use the IPv4 form.
function unmapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
