/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { fileURLToPath, URL } from 'node:url';

const api = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:54321';
const proxied = ['/rest', '/auth', '/storage', '/realtime', '/functions', '/inbox', '/config.json'];

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
    // ws: /realtime/v1/websocket is a WebSocket
    proxy: Object.fromEntries(proxied.map((p) => [p, { target: api, changeOrigin: false, ws: p === '/realtime' }])),
  },
  build: { chunkSizeWarningLimit: 600 },
  test: {
    globals: true,
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // A limit for a stuck test, not a speed requirement (see src/test/setup.ts).
    testTimeout: 30_000,
  },
});
