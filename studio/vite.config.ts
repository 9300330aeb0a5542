/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { fileURLToPath, URL } from 'node:url';

// The dashboard is served by the server at /studio (embedded from studio/dist); in development
// its API is proxied to a running server.
const api = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:54321';

export default defineConfig({
  base: '/studio/',
  plugins: [react(), tailwindcss()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: { proxy: { '/studio/api': { target: api, changeOrigin: false } } },
  build: {
    chunkSizeWarningLimit: 700,
    rollupOptions: {
      output: {
        // CodeMirror is only needed by the SQL editor: its own chunk, loaded with that screen.
        manualChunks(id: string) {
          if (id.includes('node_modules/@codemirror') || id.includes('node_modules/@lezer') || id.includes('node_modules/codemirror')) {
            return 'codemirror';
          }
          return undefined;
        },
      },
    },
  },
  test: {
    globals: true,
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
