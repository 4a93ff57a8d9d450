import { z } from 'zod';
import type { SettingsSection } from '../../ports/storage-backend.js';
import { integerSetting as integer } from '../../config/integer-setting.js';
import type { MongoSettings } from './connect-mongo.js';

/** The `mongodb` block of config/<APP_ENV>.json and its MONGODB_* variables. Driver-free: loaded on any storage. */
export const mongoConfig: SettingsSection<MongoSettings> = {
  schema: z.strictObject({
    url: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://'),
    db: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1 to 63 letters, digits, _ or -'),
    // Bounds how long a storage operation may wait for an unreachable server before answering 503.
    timeoutMs: integer(100, 60_000).default(2500),
    // Acknowledged by a majority, a write survives an election; majority reads never see one that may roll back.
    writeConcern: z
      .union([z.literal('majority'), integer(1, 50)], { error: 'must be "majority" or a number of members from 1 to 50' })
      .default('majority'),
    readConcern: z.enum(['majority', 'local']).default('majority'),
  }),
  env: {
    url: 'MONGODB_URL',
    db: 'MONGODB_DB',
    timeoutMs: 'MONGODB_TIMEOUT_MS',
    writeConcern: 'MONGODB_WRITE_CONCERN',
    readConcern: 'MONGODB_READ_CONCERN',
  },
};
