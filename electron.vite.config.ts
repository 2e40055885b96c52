import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    build: {
      rollupOptions: { input: { index: resolve(__dirname, 'src/main/index.ts') } },
    },
  },
  preload: {
    build: {
      // A sandboxed preload must be one CommonJS file that requires nothing but 'electron': bundle everything.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs', inlineDynamicImports: true },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    // Relative asset URLs: the page is served from retrace-app://app/ in Electron and from /<token>/ by
    // `retrace serve`, and every asset request must carry that prefix.
    base: './',
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      // electron-vite leaves the renderer unminified by default; minified, the first paint parses less than half
      // the JavaScript (Monaco's editor core is most of it).
      minify: true,
      // Monaco's editor core is one large chunk by nature (loaded from disk, never over a network). The limit is
      // the first-paint budget test/app/rendererBundle.test.ts enforces: 3 MiB, in Vite's kB.
      chunkSizeWarningLimit: 3145,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    worker: { format: 'es' },
    plugins: [react()],
  },
});
