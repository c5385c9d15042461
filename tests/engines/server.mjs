// tools/serve.mjs (strict CSP header, 127.0.0.1) with one addition: every HTML page it serves
// loads in-page.js first, from the same origin, so each engine records its page's errors alike.
import { readFileSync } from 'node:fs';

import { CSP, startServer } from '../../tools/serve.mjs';

const IN_PAGE_PATH = '/__engine-in-page.js';
const IN_PAGE = readFileSync(new URL('./in-page.js', import.meta.url));
const TAG = `<script src="${IN_PAGE_PATH}"></script>`;

const isHtml = (body) => /^<!doctype html>/i.test(String(body.slice(0, 15)));
const withRecorder = (body) => (isHtml(body) ? String(body).replace(/<head[^>]*>/i, (head) => head + TAG) : body);

/** Serves `root` like `npm start` does; resolves to { server, url }. */
export async function serveWithRecorder(root) {
  const { server, url } = await startServer({ root });
  const [serveFile] = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    if (new URL(req.url, url).pathname === IN_PAGE_PATH) {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache' });
      res.end(IN_PAGE);
      return;
    }
    const end = res.end.bind(res);
    res.end = (body, ...rest) => end(body ? withRecorder(body) : body, ...rest);
    serveFile(req, res);
  });
  return { server, url };
}
