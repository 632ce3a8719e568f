# syntax=docker/dockerfile:1
# One image for every Sightline service: `--target=<service>` picks what runs
# (gateway, identity, sites, settings, script-builder, query, ingest, migrate; default all).
# Stages: manifests (the workspaces' package.json only) → deps (npm ci) → build (the
# dashboard's static files; sources compiled to JavaScript) → runtime. Dependencies are
# installed before any source is copied, so a source edit rebuilds from the build stage
# on and reuses the install.

ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY apps/ ./apps/
COPY libs/ ./libs/
# Only the workspaces' package.json go on: this stage reruns on each source edit, but
# deps's copy of its output (and so the install) changes only when a manifest does.
RUN mkdir /manifests \
 && find apps libs -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

FROM ${NODE_IMAGE} AS deps
# false: leave out the embedded ClickHouse engine (chDB's native library, ~543 MB)
# for deployments on a ClickHouse server (CLICKHOUSE_URL, as the Helm chart runs).
# Such an image refuses to start without CLICKHOUSE_URL, saying so. With it, only a
# process on embedded stores (--target=all without CLICKHOUSE_URL) ever loads chDB:
# the engine is imported on its first use, never by a service given CLICKHOUSE_URL.
ARG EMBEDDED_CLICKHOUSE=true
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=manifests /manifests/ ./
# Production dependencies only; install scripts stay disabled (every native part
# ships as a prebuilt optional dependency).
# Behind a TLS-inspecting proxy, pass its CA bundle for this step only:
# `--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt` (mounted, never in a layer).
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && npm ci --omit=dev --no-audit --no-fund --ignore-scripts \
 && npm cache clean --force \
 && if [ "$EMBEDDED_CLICKHOUSE" = "false" ]; then rm -rf node_modules/@chdb; fi

FROM deps AS build
COPY tsconfig.base.json ./
COPY apps/ ./apps/
COPY libs/ ./libs/
COPY tools/image/compile.mjs ./tools/image/
# No test code in the image; then every .ts becomes a .js beside it (esbuild, one
# file per file) and the packages' exports point at it: node runs it without tsx.
# The dashboard's static files come first (esbuild: hashed assets, .br/.gz siblings,
# manifest.json in apps/dashboard/dist), then the widgets' (apps/widgets/dist, the
# same layout), then the server's TypeScript is compiled.
# Of the dashboard and the widgets only the builds are kept: their sources are the
# browser's, not the server's.
RUN find apps libs -name '*.test.ts' -delete \
 && rm -rf libs/testkit apps/*/src/test-support libs/*/src/testing \
 && npm run build:dashboard \
 && rm -rf apps/dashboard/src apps/dashboard/scripts apps/dashboard/tests apps/dashboard/build.ts apps/dashboard/tsconfig.json \
 && npm run build:widgets \
 && rm -rf apps/widgets/src apps/widgets/scripts apps/widgets/tests apps/widgets/*.ts apps/widgets/tsconfig.json \
 && node tools/image/compile.mjs \
 && rm -rf tools tsconfig.base.json

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    SIGHTLINE_DATA_DIR=/data \
    PORT=8080 \
    GRPC_PORT=50051
WORKDIR /app
# A fixed non-root user; the chart runs with runAsUser 10001 and a read-only root fs.
RUN groupadd --system --gid 10001 sightline \
 && useradd --system --uid 10001 --gid sightline --home-dir /app --shell /usr/sbin/nologin sightline \
 && mkdir -p /data && chown sightline:sightline /data
COPY --from=build --chown=root:root /app /app
COPY --chown=root:root proto/ ./proto/
USER 10001:10001
EXPOSE 8080 50051 9464
VOLUME ["/data"]
# No init shim needed: node runs as PID 1 with its own SIGTERM/SIGINT handlers (the
# launcher drains in-flight work, then exits). Health is probed by Kubernetes on the
# real endpoints (gateway /healthz, gRPC health on services), not by a HEALTHCHECK.
STOPSIGNAL SIGTERM
# A 64 MB young generation: ingest holds each batch's rows for up to a second, so with
# V8's 16 MB default they survive scavenges and are copied twice; fewer, cheaper
# scavenges gave +9–15 % events/s stored (npm run bench -- ingestion). Idle memory is
# unchanged: the young generation grows only under load.
ENTRYPOINT ["node", "--max-semi-space-size=64", "apps/launcher/src/main.js"]
CMD ["--target=all"]
