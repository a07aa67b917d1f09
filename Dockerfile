# spec-review, hosted mode (docs/deploy.md). Two stages: build with dev dependencies,
# then run from the built output with production dependencies only, as a non-root user.

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# Builds the server (dist/), the dashboard and the PGlite template, then drops dev dependencies.
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/server/db/migrations ./server/db/migrations
COPY --from=build /app/profiles ./profiles
USER node
EXPOSE 8787
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve", "--hosted", "--host", "0.0.0.0", "--port", "8787"]
