import { z } from 'zod';

/** An integer setting; the message states the range, since environment values arrive as text. */
export function integerSetting(min: number, max: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}
