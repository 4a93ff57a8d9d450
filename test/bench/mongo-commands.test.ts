import { describe, expect, it } from 'vitest';
import { addCommands, commandsBetween, parseMongoCommands, perRequest } from '../../bench/src/mongo-commands.js';

const exposition = (find: number, insert: number) => `# HELP animal_store_mongodb_commands_total MongoDB commands sent.
# TYPE animal_store_mongodb_commands_total counter
animal_store_mongodb_commands_total{command="find"} ${find}
animal_store_mongodb_commands_total{outcome="ok",command="insert"} ${insert}
animal_store_mongodb_commands_total{outcome="error",command="insert"} 1
http_requests_total{method="GET",route="/v1/pets",status="200"} 5
`;

describe('MongoDB commands per request, from /metrics', () => {
  it('sums the counter by command, whatever other labels it has', () => {
    expect(parseMongoCommands(exposition(10, 4))).toEqual({ find: 10, insert: 5 });
  });

  it('reads null when the service does not expose the counter', () => {
    expect(parseMongoCommands('http_requests_total{method="GET"} 5\n')).toBeNull();
    expect(perRequest(null, 100)).toBe('n/a (metric not exposed)');
  });

  it('divides the commands sent during runs by the responses', () => {
    const first = commandsBetween(parseMongoCommands(exposition(10, 4)), parseMongoCommands(exposition(110, 104)));
    const second = commandsBetween(parseMongoCommands(exposition(110, 104)), parseMongoCommands(exposition(210, 204)));
    expect(perRequest(addCommands([first, second]), 200)).toBe('2.00 (find 1.00, insert 1.00)');
  });

  it('stays null when one run had no counter', () => {
    expect(addCommands([{ find: 1 }, null])).toBeNull();
  });
});
