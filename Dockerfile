# loopguard: build the TypeScript, then a slim runtime image that runs `loopguard run`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY processors processors
COPY schemas schemas
COPY topology topology
COPY sdk sdk
COPY cli cli
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production KAFKAJS_NO_PARTITIONER_WARNING=1
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/package.json package.json
COPY schemas/*.avsc schemas/
COPY examples examples
USER node
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["run"]
