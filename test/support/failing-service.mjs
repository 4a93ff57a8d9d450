// The built service as npm start runs it, with one team middleware that fails unexpectedly on `X-Test-Throw: plain`.
import { startThrowingService } from './start-throwing-service.mjs';

const service = await startThrowingService();
process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
