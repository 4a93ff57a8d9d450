# syntax=docker/dockerfile:1
# The service's image: docs/deploying.md, "The container image". test/deploy/production-build.test.ts runs this file's final-stage
# install and start commands for real (without a container engine) and checks the rest.

# Build stage: every dependency (TypeScript among them), then `npm run build` into dist/.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=optional
COPY tsconfig.json tsconfig.build.json ./
COPY src src
RUN npm run build

# Final stage: production dependencies and the built service, nothing else.
FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no production dependency needs an install script; --omit=optional: the test-only MongoDB binary.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist dist
COPY config config
# The image's own unprivileged user; nothing under /app is writable by it.
USER node
EXPOSE 3000 9464
# Liveness only: a load balancer or orchestrator checks /readyz itself (503 while draining or without MongoDB).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node itself is PID 1 (exec form, no npm, no shell), so `docker stop`'s SIGTERM starts the graceful shutdown.
# Give it more than SHUTDOWN_TIMEOUT_MS (10 s): `docker stop -t 15`, compose `stop_grace_period: 15s`.
# --enable-source-maps: logged stacks name the src/*.ts lines (dist/ holds the .map files); the same flags as npm start.
CMD ["node", "--enable-source-maps", "--v8-pool-size=0", "--import", "./dist/telemetry/tracing-preload.js", "dist/main.js"]
