// A small static file server for web/ on localhost. Used by `npm start` and the browser tests.
//   node tools/serve.mjs [--port 8080] [--root web] [--gzip]
// Serves .mjs and .wasm with the MIME types browsers require, sends the same
// Content-Security-Policy as the page's meta tag, and refuses paths outside the root.
// With --gzip (gzip: true) it compresses as a static host does, so byte budgets are measured
// as learners download them.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ts': 'text/plain; charset=utf-8',
};
// Already compressed formats, which static hosts send as they are.
const INCOMPRESSIBLE = new Set(['.png', '.ico', '.woff2']);

export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; object-src 'none'; base-uri 'none'";

/** Starts serving `root`; resolves to { server, url } once listening. Port 0 picks a free one. */
export function startServer({ root, port = 0, host = '127.0.0.1', gzip = false } = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      let file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      let body = await readFile(file);
      const headers = {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Security-Policy': CSP,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      };
      if (gzip && !INCOMPRESSIBLE.has(extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        body = gzipSync(body); // zlib's default level, 6, as Apache's mod_deflate uses; tools/dist.mjs counts the same
        Object.assign(headers, { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
      }
      res.writeHead(200, headers);
      res.end(body);
    } catch (error) {
      const missing = error.code === 'ENOENT' || error.code === 'ENOTDIR' || error instanceof URIError;
      res.writeHead(missing ? 404 : 500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(missing ? 'Not found\n' : 'Server error\n');
    }
  });
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen({ server, url: `http://${host}:${server.address().port}/` });
    });
  });
}

// Command line: try the requested port, then the next few if it is taken.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const root = arg('--root', fileURLToPath(new URL('../web/', import.meta.url)));
  const first = Number(arg('--port', process.env.PORT ?? 8080));
  const gzip = process.argv.includes('--gzip');
  for (let port = first; ; port++) {
    try {
      const { url } = await startServer({ root, port, gzip });
      console.log(`attention-calc is being served at ${url}  (Ctrl+C to stop)`);
      break;
    } catch (error) {
      if (error.code !== 'EADDRINUSE' || port >= first + 20) throw error;
    }
  }
}
