// The page's state in the URL's hash, with no server: JSON, deflated by the browser's own
// CompressionStream("deflate-raw"), in base64url. `#s=` then the text.

const PREFIX = "#s=";

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

/** The state in `hash`, or null when there is none; throws when it is damaged. */
export async function decodeState(hash) {
  if (!hash.startsWith(PREFIX)) {
    return null;
  }
  const binary = atob(hash.slice(PREFIX.length).replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return JSON.parse(await new Response(stream).text());
}
