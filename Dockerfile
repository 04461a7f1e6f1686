# syntax=docker/dockerfile:1
# One image for the API, the worker and the migration job (docker-compose.yml picks the command), on Node 24, the
# long-term support line the registries serve whose native packages (Temporal's core bridge) we run;
# docs/operations.md#docker says what is tested of it and what is not.

# --- build: every package, the TypeScript build (dist/) and the merchant dashboard (web/dist) ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/package.json web/package-lock.json ./web/
RUN npm ci --prefix web --no-audit --no-fund
COPY . .
RUN npx tsc -p tsconfig.build.json && npm run build --prefix web

# --- runtime: production dependencies only (no TypeScript, tsx or embedded PostgreSQL), the compiled code and the
# dashboard, not root ---
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The hosted payment page's static files (its script and stylesheet), read beside its compiled code.
COPY --from=build /app/src/page/assets ./dist/src/page/assets
COPY --from=build /app/web/dist ./web/dist
# Uploaded documents and the .eml outbox live on a volume mounted at /data (docker-compose.yml).
RUN mkdir -p /data/documents /data/mail && chown -R node:node /data
USER node
EXPOSE 3000 9464
CMD ["node", "dist/src/server.js"]
