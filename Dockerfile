# One image for both processes: `npm run start:api` or `npm run start:worker`.
# Bun comes from devDependencies, so npm alone builds it.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data DATABASE_URL=file:/data/onboarding.sqlite
# Bun's allocator settings (shared/runtime-env.ts says why); compose runs
# `bun api/main.ts` and `bun worker/main.ts` in this image directly, so they are set here.
ENV MIMALLOC_PURGE_HOLES=0 MIMALLOC_PURGE_DELAY=1000
COPY package.json package-lock.json ./
COPY shims ./shims
RUN npm ci --include=dev --no-audit --no-fund && npm cache clean --force
COPY . .
VOLUME ["/data"]
EXPOSE 3000
CMD ["npm", "run", "start:api"]
