import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// `npm run dev` proxies the API to a running `gantry serve` (or the mock server of e2e/),
// so the app is always served from the same origin as /api/v1, as in production.
const target = process.env.GANTRY_URL ?? 'http://127.0.0.1:8090';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    rolldownOptions: {
      output: {
        // The charting library is only needed by the runs, cluster and what-if pages.
        codeSplitting: {
          groups: [
            { name: 'echarts', test: /node_modules[\\/](echarts|zrender)/ },
            { name: 'flow', test: /node_modules[\\/](@xyflow|@dagrejs|d3-)/ },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': { target, changeOrigin: false },
      '/healthz': { target },
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    benchmark: { include: ['test/**/*.bench.ts'] },
    environment: 'node',
  },
});
