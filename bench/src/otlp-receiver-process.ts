import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * The bench's OTLP/HTTP receiver, in a process of its own (otlp-receiver.ts starts it): it takes every export and
 * keeps only counts. It tells its parent its port once it listens, and its counts when asked.
 */

let requests = 0;
let bytes = 0;
const server = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    requests++;
    // An empty ExportTraceServiceResponse: a zero-length protobuf message.
    response.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': 0 }).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', () => process.send?.({ requests, bytes }));
// The bench is done with it (or gone): the traced servers are stopped by then.
process.on('disconnect', () => process.exit(0));
