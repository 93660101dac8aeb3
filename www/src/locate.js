// Field paths of the core's problems (`spec.replicaSpecs.worker.replicas`,
// `spec.replicaSpecs.ps.template.spec.containers[0].image`, `metadata.annotations.a.b/c`) to ranges
// of the YAML or JSON source they came from, through the `yaml` package's syntax tree.
import { isMap, isScalar, isSeq } from "yaml";

/**
 * Where a problem at `path` of `doc` (a yaml `Document` parsed from `source`) is marked:
 * `{from, to, exact, depth}`, `depth` the number of path segments found. An existing scalar is
 * marked whole; a map or list by its key (marking a whole block would underline half the
 * document); a missing field at the deepest part of the path that exists (`exact: false`), the
 * document's first line when not even the first key exists. With `key: true` (for a field that
 * should not be there) the key is marked rather than its value.
 * Keys are matched longest first, since the core joins keys with `.` even when they contain one
 * (annotation keys such as `kubectl.kubernetes.io/last-applied-configuration`); replica type
 * keys match without regard to case, as the core reads them.
 */
export function locate(doc, source, path, { key: preferKey = false } = {}) {
  let node = doc.contents;
  let key = null;
  let rest = path;
  let depth = 0;
  while (rest !== "") {
    if (isSeq(node)) {
      const m = /^\[(\d+)\]\.?/.exec(rest);
      const item = m ? node.items[Number(m[1])] : undefined;
      if (item === undefined || item === null) {
        break;
      }
      node = item;
      key = null;
      depth += 1;
      rest = rest.slice(m[0].length);
    } else if (isMap(node)) {
      const pair = matchKey(node, rest);
      if (!pair) {
        break;
      }
      key = pair.key;
      node = pair.value;
      depth += 1;
      rest = rest.slice(String(pair.key.value).length).replace(/^\./, "");
    } else {
      break;
    }
  }
  const exact = rest === "";
  const range = markRange(doc, source, node, key, exact && !(preferKey && key));
  return { from: range[0], to: range[1], exact, depth };
}

function matchKey(map, rest) {
  let best = null;
  for (const pair of map.items) {
    if (!isScalar(pair.key)) {
      continue;
    }
    const k = String(pair.key.value);
    const fits = (s) => rest === s || rest.startsWith(`${s}.`) || rest.startsWith(`${s}[`);
    if ((fits(k) || fits(k.toLowerCase())) && (!best || k.length > String(best.key.value).length)) {
      best = pair;
    }
  }
  return best;
}

function markRange(doc, source, node, key, exact) {
  const empty = (n) => !n || (isScalar(n) && n.range[0] === n.range[1]);
  if (exact && !empty(node) && (isScalar(node) || node.items?.length === 0)) {
    return node.range;
  }
  if (key) {
    return key.range;
  }
  if (node && node.range && !(isMap(node) || isSeq(node))) {
    return node.range;
  }
  // A list item that is a map, or the document itself: its first line.
  const start = node?.range?.[0] ?? doc.range[0];
  const newline = source.indexOf("\n", start);
  return [start, newline === -1 ? source.length : newline];
}
