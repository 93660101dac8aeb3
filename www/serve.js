// Serves www/dist on 127.0.0.1 and prints the address: `make preview`, and the browser tests and
// benchmark (which import `serve`). Static files only; every response carries the page's Content
// Security Policy, so neither the page nor its worker can load anything from elsewhere.
// Usage: node serve.js [PORT]   (default 8000, clear of the controller's ports; 0 picks a free one)
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("dist/", import.meta.url));
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** Starts the server on `port` of 127.0.0.1; resolves to `{server, url}`. */
export async function serve(port = 0) {
  const server = createServer(async (request, response) => {
    let path;
    try {
      path = normalize(join(ROOT, decodeURIComponent(new URL(request.url, "http://localhost").pathname)));
    } catch {
      // `/%`, `/%zz`: not percent-encoding, so no file's name.
      response.writeHead(400, { "content-type": "text/plain" }).end("bad request: the path is not valid percent-encoding");
      return;
    }
    if (path !== ROOT.slice(0, -1) && !path.startsWith(ROOT)) {
      response.writeHead(403).end();
      return;
    }
    if (path.endsWith(sep) || path === ROOT.slice(0, -1)) {
      path = join(path, "index.html");
    }
    let body;
    try {
      body = await readFile(path);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, {
      "content-type": TYPES[extname(path)] ?? "application/octet-stream",
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
    });
    response.end(body);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8000);
  const { url } = await serve(port);
  console.log(`elasticjob preview: ${url}  (Ctrl-C stops it)`);
}
