import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLineWriter, type RequestLine } from '../../src/adapters/http/request-line-writer.js';
import { fuzzParameters } from '../fuzz/fuzz-settings.js';
import { captureLogs } from '../support/log-capture.js';

const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const requestLines: fc.Arbitrary<RequestLine> = fc.record({
  // What the frame gives (a UUID, or a client's id of [\w.:-]), and texts that need escaping, which it never gives.
  requestId: fc.oneof(fc.uuid(), fc.stringMatching(/^[\w.:-]{1,128}$/), fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constantFrom('a"b', 'a\\b', 'tab\there', '')),
  method: nullable(fc.constantFrom('GET', 'POST', 'DELETE', 'M-SEARCH')),
  route: nullable(fc.constantFrom('/v1/pets', '/v1/pets/:petId', '/healthz', 'a "quoted" \\ route')),
  status: fc.integer({ min: 100, max: 599 }),
  durationMs: nullable(
    fc.oneof(
      // What requestLine gives: milliseconds rounded to the microsecond (written from whole microseconds), up to
      // past 2^31 µs, where the writer leaves them to String().
      fc.integer({ min: 0, max: 2 ** 31 + 1000 }).map((micros) => micros / 1000),
      fc.double({ min: 0, max: 1e6, noNaN: true }),
      fc.constantFrom(0, 1.5, 0.001, 0.1, 10, 2147483.647, 2147483.648, 1e21, -0.5),
    ),
  ),
  apiKeyId: nullable(fc.stringMatching(/^key_[0-9a-f]{12}$/)),
  clientAddress: nullable(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ maxLength: 20 }))),
});

// Same instant for both, so the lines can be compared byte for byte.
const sameTime = (text: string) => text.replace(/"time":\d+/g, '"time":0');

describe('requestLineWriter', () => {
  it("writes exactly what the service's logger writes for logger.info(line, 'request')", async () => {
    const ours = await captureLogs();
    const pinos = await captureLogs();
    const write = requestLineWriter(ours.logger);
    fc.assert(
      fc.property(requestLines, (line) => {
        write(line);
        pinos.logger.info(line, 'request');
        expect(sameTime(ours.text())).toBe(sameTime(pinos.text()));
      }),
      fuzzParameters('request line = pino line', 0.5),
    );
    expect(ours.entries().length).toBeGreaterThan(100);
  });

  it("writes nothing when the logger's level is above info, and lines again when it is lowered", async () => {
    const { logger, entries } = await captureLogs();
    const write = requestLineWriter(logger);
    const line: RequestLine = { requestId: 'r1', method: 'GET', route: '/v1/pets', status: 200, durationMs: 1, apiKeyId: null, clientAddress: '127.0.0.1' };
    logger.level = 'warn';
    write(line);
    expect(entries()).toHaveLength(0);
    logger.level = 'info';
    write(line);
    expect(entries()).toEqual([expect.objectContaining({ level: 30, msg: 'request', requestId: 'r1', apiKeyId: null })]);
  });

  it('hands a destination that wants pino metadata (multistream) the ordinary call', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, pino.multistream([{ stream: { write: (line: string) => void lines.push(line) } }]));
    const line: RequestLine = { requestId: 'r2', method: null, route: null, status: 431, durationMs: null, apiKeyId: null, clientAddress: null };
    requestLineWriter(logger)(line);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([expect.objectContaining({ msg: 'request', requestId: 'r2', status: 431, method: null })]);
  });
});
