import { isIP } from 'node:net';
import type { Context } from 'koa';

// A DNS name, an IPv4 address or a bracketed IPv6 address, and an optional port: nothing that could close a quote
// in the curl line the address is written into, or markup in the page that renders it.
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?:(${LABEL}(?:\\.${LABEL})*)|\\[([0-9A-Fa-f:.]{2,45})\\])(?::(\\d{1,5}))?$`);

/** Host[:port] when the Host header is a well-formed one, else undefined. */
export function validHost(host: string): string | undefined {
  const match = HOST.exec(host);
  if (match === null || host.length > 261) return undefined;
  const [, name, ipv6, port] = match;
  if (ipv6 !== undefined && isIP(ipv6) !== 6) return undefined;
  if (name !== undefined && name.length > 253) return undefined;
  if (port !== undefined && Number(port) > 65535) return undefined;
  return host.toLowerCase();
}

/**
 * The origin the request reached: its Host header when well-formed, else the address and port of the socket it
 * arrived on (which no client can forge).
 */
export function requestOrigin(ctx: Context): string {
  const host = validHost(ctx.host);
  if (host !== undefined) return `${ctx.protocol}://${host}`;
  const { localAddress = '127.0.0.1', localPort } = ctx.req.socket;
  const address = isIP(localAddress) === 6 ? `[${localAddress}]` : localAddress;
  return `${ctx.protocol}://${address}:${localPort}`;
}
