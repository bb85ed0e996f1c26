import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * Writes a .br and a .gz twin beside every built text file. gateway-api sends the smallest one the
 * browser accepts (compressed once here, at the highest levels, instead of on every request).
 */
function precompress(outDir: string): Plugin {
  return {
    name: 'orbital-precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
          entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
        );
      for (const file of walk(outDir).filter((f) => /\.(js|css|html|svg|json)$/.test(f))) {
        const content = readFileSync(file);
        writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

/**
 * The console is a static single-page app: `vite build` writes it to dist/, which gateway-api serves at
 * `/` (hashed files under /assets). `vite` (npm run dev -w console) serves it with hot reload and sends
 * the API and its streams to the gateway that `npm start` runs.
 */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), precompress(join(import.meta.dirname, 'dist'))],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  server: {
    port: 5173,
    proxy: { '/api': { target: process.env.ORBITAL_API_URL ?? 'http://127.0.0.1:3000' } },
  },
});
