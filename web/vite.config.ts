/**
 * Build of the merchant dashboard: served by the API at `/dashboard`, so every asset URL
 * starts there. `npm start` runs `vite build` when `dist/` is missing or older than `src/`.
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Maps for whoever builds (to read a stack trace): no script names them and the server never serves them.
    sourcemap: 'hidden',
    chunkSizeWarningLimit: 1500,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:3000' } },
});
