// A TCP proxy between a client (a controller) and the API server that can hold every byte both
// ways (`stall`: a hung network, no connection closed, not a refused one), let them go (`resume`),
// and cut every connection (`reset`: the client connects again); and an HTTP proxy that adds what
// a real cluster adds (latency, 429s, watches expired: `faultProxy`). Used by leader.test.js and the
// chaos soak (benches/node/soak.js).
import http from "node:http";
import https from "node:https";
import net from "node:net";

/** A proxy to `server` (the API server's URL) on a free loopback port; `close()` ends it. */
export async function stallableProxy(server) {
  const target = new URL(server);
  const pairs = new Set();
  let stalled = false;
  /** Calls `fn(from, to)` for both directions of every open connection. */
  const eachWay = (fn) => {
    for (const pair of pairs) {
      for (const [from, to] of pair) fn(from, to);
    }
  };
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = [
      [client, upstream],
      [upstream, client],
    ];
    pairs.add(pair);
    for (const [from, to] of pair) {
      from.on("error", () => to.destroy());
      from.on("close", () => {
        pairs.delete(pair);
        to.destroy();
      });
      if (stalled) {
        from.pause();
      } else {
        from.pipe(to);
      }
    }
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    port: proxy.address().port,
    stall() {
      stalled = true;
      eachWay((from, to) => {
        from.unpipe(to);
        from.pause();
      });
    },
    resume() {
      stalled = false;
      eachWay((from, to) => {
        from.pipe(to);
        from.resume();
      });
    },
    /** A partition's end: every connection held is dropped (its bytes never arrive) and new ones flow. */
    heal() {
      stalled = false;
      this.reset();
    },
    reset() {
      for (const pair of pairs) {
        pair[0][0].destroy();
        pair[0][1].destroy();
      }
    },
    close() {
      this.reset();
      return new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/**
 * An HTTP proxy on loopback in front of the API server (`upstream`, its URL; `tls`, the options
 * that reach it: ca, cert, key) that plays what a real cluster's network and API server add, each
 * until it is turned off:
 * - `latency(ms)`: every request held `ms` before it is sent on (a slow network);
 * - `throttle(retryAfterS)`: every second request that is not a watch answered as API Priority
 *   and Fairness (and the max-in-flight filter) rejects one: 429, `Retry-After`, and the plain
 *   text of `http.Error` (k8s.io/apiserver pkg/server/filters/priority-and-fairness.go,
 *   `tooManyRequests`: no Status object);
 * - `expireWatches()`: the watches open now cut, and each one's next connection answered with the
 *   event an API server sends for a resourceVersion older than its watch cache holds (an `ERROR`
 *   event, a Status of code 410, reason `Expired`, "too old resource version": k8s.io/apiserver
 *   pkg/storage/cacher/watch_cache_history.go, `errors.NewResourceExpired`), so its client lists
 *   again.
 * The client speaks plain HTTP to it (its credentials go on as they came); it speaks to `upstream`
 * as the client would have. `close()` ends it; `counts` says what it did.
 */
export async function faultProxy(upstream, tls = {}) {
  const target = new URL(upstream);
  const client = target.protocol === "https:" ? https : http;
  const agent = new client.Agent({ keepAlive: true, ...tls });
  let latencyMs = 0;
  let retryAfterS;
  let turn = 0;
  /** Watches open now: response -> their path (without the query). */
  const watches = new Map();
  /** Paths whose next watch is answered 410. */
  const expired = new Set();
  const counts = { forwarded: 0, throttled: 0, expired: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, target);
    const isWatch = ["true", "1"].includes(url.searchParams.get("watch") ?? "");
    const go = () => {
      if (res.destroyed) return;
      if (retryAfterS !== undefined && !isWatch && (turn++ % 2 === 0)) {
        counts.throttled += 1;
        req.resume();
        res.writeHead(429, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", "retry-after": String(retryAfterS) });
        res.end("Too many requests, please try again later.\n");
        return;
      }
      if (isWatch && expired.delete(url.pathname)) {
        counts.expired += 1;
        req.resume();
        const rv = url.searchParams.get("resourceVersion") ?? "0";
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`${JSON.stringify({ type: "ERROR", object: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: `too old resource version: ${rv} (${Number(rv) + 1})`, reason: "Expired", code: 410 } })}\n`);
        return;
      }
      counts.forwarded += 1;
      const headers = { ...req.headers, host: target.host };
      const up = client.request(new URL(req.url, target), { method: req.method, headers, agent }, (answer) => {
        // At once, as the API server answers a watch before its first event.
        res.writeHead(answer.statusCode, answer.headers).flushHeaders();
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      });
      up.on("error", () => res.destroy());
      res.on("close", () => up.destroy());
      if (isWatch) {
        watches.set(res, url.pathname);
        res.on("close", () => watches.delete(res));
      }
      req.pipe(up);
    };
    if (latencyMs > 0) {
      setTimeout(go, latencyMs);
    } else {
      go();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    url: `http://127.0.0.1:${server.address().port}`,
    counts,
    latency(ms) {
      latencyMs = ms;
    },
    throttle(seconds) {
      retryAfterS = seconds;
      turn = 0;
    },
    expireWatches() {
      for (const [res, path] of watches) {
        expired.add(path);
        res.destroy();
      }
      return expired.size;
    },
    close() {
      for (const res of watches.keys()) res.destroy();
      agent.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
