import { spawnSync } from 'node:child_process';

// The first --import of `npm run dev`: node --watch restarts the service on every change under src/ or config/,
// and each start builds dist/ (incremental) before the tracing preload and the service load from it.
if (spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' }).status !== 0) {
  // tsc printed the errors; node --watch waits for the next change.
  process.exit(1);
}
