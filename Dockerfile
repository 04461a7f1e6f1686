# One image for the API and the worker (docker-compose.yml picks the command).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npx tsc -p tsconfig.build.json
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "dist/src/server.js"]
