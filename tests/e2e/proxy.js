// A TCP proxy between a client (a controller) and the API server that can hold every byte both
// ways (`stall`: a hung network, no connection closed, not a refused one), let them go (`resume`),
// and cut every connection (`reset`: the client connects again). Used by leader.test.js and the
// chaos soak (benches/node/soak.js).
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
