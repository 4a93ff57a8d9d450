import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptFlags } from '../bench/src/servers.js';
import { portOf, ROOT, spawnService } from './support/service-process.js';

describe('the built service started with the flags of npm start', () => {
  it("logs an unexpected error's stack with the lines of the TypeScript sources, not of dist/", async () => {
    const flags = startScriptFlags(join(ROOT, 'package.json'));
    const child = spawnService({ command: [process.execPath, ...flags, 'test/support/failing-service.mjs'], env: { SHUTDOWN_GRACE_MS: '0' } });
    try {
      const port = portOf(await child.logged('listening'));
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'X-Test-Throw': 'plain' } });
      expect(response.status).toBe(500);
      const { stack } = (await child.logged('unexpected error')).err as { stack: string };
      expect(stack).toMatch(/^Error: an unexpected failure\n/);
      expect(stack).toContain(`(${join(ROOT, 'src/adapters/http/error-responses.ts')}:`);
      expect(stack).toContain(`(${join(ROOT, 'src/adapters/http/request-context.ts')}:`);
      expect(stack).not.toContain('/dist/');
    } finally {
      child.process.kill('SIGTERM');
      await child.closed;
    }
  });
});
