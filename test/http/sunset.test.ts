import { beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../support/fake-clock.js';
import { useTestServer } from '../support/http-harness.js';

const SUNSET = Date.UTC(2030, 11, 5);

describe('getPet around its sunset instant', () => {
  const clock = new FakeClock(SUNSET - 1);
  const server = useTestServer({}, { clock });
  let petPath: string;

  beforeAll(async () => {
    petPath = (await server.createPet('{"name":"Rex","categoryId":1}')).headers.get('location')!;
  });

  it('still answers 200 one millisecond before the sunset', async () => {
    clock.set(SUNSET - 1);
    const response = await server.request('GET', petPath);
    expect(response.status).toBe(200);
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('answers 410 operation_removed pointing to the successor from the sunset instant on', async () => {
    for (const now of [SUNSET, SUNSET + 86_400_000 * 365]) {
      clock.set(now);
      const response = await server.request('GET', petPath);
      expect(response.status).toBe(410);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.json).toEqual({ code: 'operation_removed', message: expect.stringContaining('GET /v1/pets'), status: 410n });
      expect(response.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
      expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
    }
  });

  it('keeps authentication first after the sunset', async () => {
    clock.set(SUNSET + 1);
    const response = await server.request('GET', petPath, { anonymous: true });
    expect(response.status).toBe(401);
  });

  it('leaves the other operations untouched after the sunset', async () => {
    clock.set(SUNSET + 1);
    expect((await server.request('GET', '/v1/pets')).status).toBe(200);
    expect((await server.createPet('{"name":"Tom","categoryId":2}')).status).toBe(201);
  });
});
