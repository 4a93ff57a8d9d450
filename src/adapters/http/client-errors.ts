import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error.js';
import { toErrorResponse, type ErrorBody } from './error-responses.js';
import { dispatchedRoute, type RequestLine, type RequestObserver } from './observe-requests.js';
import { inFlightRequest, requestLine, SECURITY_HEADERS, type RequestState } from './request-context.js';

/**
 * Requests Node's HTTP parser refuses or its timeouts cut (oversized head, a head or body that takes too
 * long, bytes that are not HTTP) would get Node's bare answers and no log line. This gives them the same
 * JSON Error body and headers as every other error, closes the connection, and logs and counts the answer
 * once with the status sent. A request the app was serving (a body cut by the request
 * timeout) is logged here with its method and route, and the app then leaves it alone.
 */
export function answerClientErrors(observer: RequestObserver) {
  return function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
    const serving = inFlightRequest(socket);
    // Reset by the client, or our response already begun (a second status line would corrupt it): nothing to send.
    if (error.code === 'ECONNRESET' || !socket.writable || serving?.res.headersSent === true) {
      socket.destroy();
      return;
    }
    const { body } = toErrorResponse(asApiError(error.code));
    const line =
      serving === undefined ? unreadRequest(socket, body) : requestLine(serving, body.status, dispatchedRoute(serving), body.code);
    if (serving !== undefined) (serving.state as RequestState).observed = true;
    const json = JSON.stringify(body);
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(json)),
      Connection: 'close',
      'X-Request-Id': line.requestId,
      ...SECURITY_HEADERS,
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.end(`HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\n${head}\r\n${json}`);
    observer.record(line);
  };
}

// The head was never parsed: no method, route, key or duration to report.
function unreadRequest(socket: Duplex, { status, code }: ErrorBody): RequestLine {
  const address = (socket as Partial<Socket>).remoteAddress ?? null;
  return { requestId: randomUUID(), method: null, route: null, status, code, durationMs: null, apiKeyId: null, clientAddress: address };
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
