// tools/serve.mjs (strict CSP header, 127.0.0.1) with one addition: every HTML page it serves
// loads in-page.js first, from the same origin, so each engine records its page's errors alike.
// On request, the files under one path prefix are served by Range requests (a GPT-2 model).
import { readFileSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';

import { CSP, startServer } from '../../tools/serve.mjs';

const IN_PAGE_PATH = '/__engine-in-page.js';
const IN_PAGE = readFileSync(new URL('./in-page.js', import.meta.url));
const TAG = `<script src="${IN_PAGE_PATH}"></script>`;

const isHtml = (body) => /^<!doctype html>/i.test(String(body.slice(0, 15)));
const withRecorder = (body) => (isHtml(body) ? String(body).replace(/<head[^>]*>/i, (head) => head + TAG) : body);

// A file under `root` as a course's host serves a model (nginx, GitHub Pages, a CDN): its
// Content-Length, and a Range request answered 206 with Content-Range. tools/serve.mjs sends every
// file whole and chunked, which a gpt2-src cannot be read from. (Also used by the Chromium suite.)
export function serveRange(root, path, req, res) {
  const file = normalize(join(root, path));
  let bytes;
  try {
    if (!file.startsWith(normalize(root) + sep)) throw new Error('outside root');
    bytes = readFileSync(file);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('Not found\n');
    return;
  }
  const headers = {
    'Content-Type': path.endsWith('.json') ? 'application/json; charset=utf-8' : 'application/octet-stream',
    'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache', 'Accept-Ranges': 'bytes',
  };
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!range) {
    res.writeHead(200, { ...headers, 'Content-Length': bytes.length });
    res.end(bytes);
    return;
  }
  const begin = Number(range[1]), end = range[2] ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
  res.writeHead(206, { ...headers, 'Content-Range': `bytes ${begin}-${end}/${bytes.length}`, 'Content-Length': end - begin + 1 });
  res.end(bytes.subarray(begin, end + 1));
}

/**
 * Serves `root` like `npm start` does; resolves to { server, url }. ranges: a path prefix
 * ('/models/') whose files are served by Range requests, as a course's host serves a model.
 */
export async function serveWithRecorder(root, { ranges = null } = {}) {
  const { server, url } = await startServer({ root });
  const [serveFile] = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    if (new URL(req.url, url).pathname === IN_PAGE_PATH) {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache' });
      res.end(IN_PAGE);
      return;
    }
    const path = new URL(req.url, url).pathname;
    if (ranges && path.startsWith(ranges)) {
      serveRange(root, decodeURIComponent(path), req, res);
      return;
    }
    const end = res.end.bind(res);
    res.end = (body, ...rest) => end(body ? withRecorder(body) : body, ...rest);
    serveFile(req, res);
  });
  return { server, url };
}
