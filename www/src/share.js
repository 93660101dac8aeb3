// The page's state in the URL's hash, with no server: JSON, deflated by the browser's own
// CompressionStream("deflate-raw"), in base64url. `#s=` then the text.
//
// A link is anyone's to write, so reading one is bounded: a hash longer than MAX_HASH is refused
// before it is decoded, and the state is inflated only up to MAX_STATE bytes (deflate packs 1 MiB of
// one repeated byte into about 1 KiB, so a short link could otherwise unpack into gigabytes).

const PREFIX = "#s=";
/** The most bytes of JSON a shared state unpacks to: far above any job a person writes by hand. */
export const MAX_STATE = 4 * 1024 * 1024;
/** The longest hash read: MAX_STATE bytes in base64 (deflate never makes its input longer by more than 0.1%). */
export const MAX_HASH = PREFIX.length + Math.ceil((MAX_STATE * 1.001 * 4) / 3);

/** The hash for `state` (any JSON value). */
export async function encodeState(state) {
  const stream = new Blob([JSON.stringify(state)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return PREFIX + btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The state in `hash`, or null when there is none; throws when it is damaged or larger than the
 * bounds above, with a message that says which.
 */
export async function decodeState(hash) {
  if (!hash.startsWith(PREFIX)) {
    return null;
  }
  if (hash.length > MAX_HASH) {
    throw new Error(`the link is ${mib(hash.length)} long, more than a shared state can be (${mib(MAX_HASH)})`);
  }
  const binary = atob(hash.slice(PREFIX.length).replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    size += value.length;
    if (size > MAX_STATE) {
      await reader.cancel();
      throw new Error(`the link unpacks to more than ${mib(MAX_STATE)}, more than a shared state can be`);
    }
    chunks.push(value);
  }
  return JSON.parse(await new Blob(chunks).text());
}

function mib(n) {
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
