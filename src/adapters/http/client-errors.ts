import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error.js';
import { toErrorResponse } from './error-responses.js';
import { SECURITY_HEADERS } from './request-context.js';

/**
 * Requests Node's HTTP parser refuses before the app sees them (oversized head, a head or body that takes
 * too long, bytes that are not HTTP) would get Node's bare answers. This gives them the same JSON Error
 * body and headers as every other error, then closes the connection.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { body } = toErrorResponse(asApiError(error.code));
  const json = JSON.stringify(body);
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(json)),
    Connection: 'close',
    'X-Request-Id': randomUUID(),
    ...SECURITY_HEADERS,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\n${head}\r\n${json}`);
}

function asApiError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'headers_too_large', 'The request line and headers exceed the size limit.');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'request_timeout', 'The request was not received in time.');
  }
  return new ApiError(400, 'malformed_request', 'The request is not valid HTTP.');
}
