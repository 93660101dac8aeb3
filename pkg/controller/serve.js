// The controller's HTTP endpoints: /healthz and /readyz on the health port, Prometheus /metrics on
// the metrics port (one server when both are the same port). Port 0 takes a free port; the ports
// bound are logged and returned.
import http from "node:http";

/**
 * @param {object} options
 * @param {number} options.healthPort
 * @param {number} options.metricsPort
 * @param {() => {ok: boolean, detail: string}} options.healthy
 * @param {() => {ok: boolean, detail: string}} options.ready
 * @param {() => Promise<{contentType: string, body: string}>} options.metrics
 * @param {string} [options.host] the address to listen on (default: every address)
 */
export async function serve({ healthPort, metricsPort, healthy, ready, metrics, host }) {
  const health = {
    "/healthz": async () => answer(healthy()),
    "/readyz": async () => answer(ready()),
  };
  const exposition = {
    "/metrics": async () => {
      const { contentType, body } = await metrics();
      return { status: 200, contentType, body };
    },
  };
  const together = healthPort === metricsPort && healthPort !== 0;
  const healthServer = await listen(together ? { ...health, ...exposition } : health, healthPort, host);
  const metricsServer = together ? healthServer : await listen(exposition, metricsPort, host);
  return {
    healthPort: healthServer.address().port,
    metricsPort: metricsServer.address().port,
    close: () => Promise.all([...new Set([healthServer, metricsServer])].map(close)),
  };
}

function answer({ ok, detail }) {
  return { status: ok ? 200 : 503, contentType: "text/plain; charset=utf-8", body: `${detail}\n` };
}

function listen(routes, port, host) {
  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const route = routes[path];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`not found: ${path}; try ${Object.keys(routes).join(", ")}\n`);
      return;
    }
    try {
      const { status, contentType, body } = await route();
      res.writeHead(status, { "content-type": contentType });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (e) {
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`${e.message}\n`);
    }
  });
  // Probes and scrapes are short; a stuck client does not hold the server.
  server.requestTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

function close(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}
