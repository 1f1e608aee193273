import { defineConfig } from 'vite';

// Preact's automatic JSX runtime through Vite's own transform: no framework plugin to keep up to date.
export default defineConfig({
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', assetsDir: 'assets', sourcemap: true, emptyOutDir: true, chunkSizeWarningLimit: 800 },
});
