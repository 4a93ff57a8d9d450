// A test's preload: every module the process resolves (ES modules, through a loader hook) or has required
// (CommonJS, require.cache at exit) is appended to the file RECORD_IMPORTS_TO names, one per line.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.RECORD_IMPORTS_TO;
register('./record-imports-hooks.mjs', import.meta.url, { data: { file } });
process.on('exit', () => appendFileSync(file, `${Object.keys(createRequire(import.meta.url).cache).join('\n')}\n`));
