#!/usr/bin/env node
// `make image`'s last step: the OCI archive that `podman save --format oci-archive` wrote, made one
// that `docker load` takes too, and the image's figures printed as JSON.
//
//   node deploy/oci-archive.mjs ARCHIVE NAME BUILD_MS BASE FIGURES   the archive, its figures into FIGURES
//   node deploy/oci-archive.mjs --print FIGURES                       the image's size and build time
//
// The archive stays an OCI image layout (oci-layout, index.json, blobs/sha256/), which podman load
// and skopeo copy (oci-archive:) read; beside index.json it gets Docker's manifest.json, naming the
// same config and layer blobs with the image's tag, as `docker save` writes it since Docker 25:
// Docker's classic image store loads only from manifest.json. NAME is written fully qualified
// (docker.io/library/NAME, what a kubelet makes of `image: NAME`) into index.json, also as
// containerd's io.containerd.image.name. The tar is written again with sorted names, owner 0 and
// the image's creation time, so the same image gives the same archive.
import { execFileSync } from "node:child_process";
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGunzip, gzipSync } from "node:zlib";

if (process.argv[2] === "--print") {
  print(JSON.parse(readFileSync(process.argv[3], "utf8")));
  process.exit(0);
}
const [archive, name, buildMs, base, figuresFile] = process.argv.slice(2);
if (!archive || !name || !buildMs || !base || !figuresFile) {
  console.error("usage: node deploy/oci-archive.mjs ARCHIVE NAME BUILD_MS BASE FIGURES, or --print FIGURES");
  process.exit(2);
}
const qualified = name.includes("/") ? name : `docker.io/library/${name}`;

const dir = mkdtempSync(join(tmpdir(), "elasticjob-oci-"));
try {
  execFileSync("tar", ["-xf", archive, "-C", dir]);
  const blob = (digest) => join(dir, "blobs", ...digest.split(":"));
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8"));
  if (index.manifests?.length !== 1) {
    throw new Error(`${archive}: ${index.manifests?.length ?? 0} manifests in index.json; one image expected`);
  }
  const [entry] = index.manifests;
  entry.annotations = { ...entry.annotations, "org.opencontainers.image.ref.name": qualified, "io.containerd.image.name": qualified };
  const manifest = JSON.parse(readFileSync(blob(entry.digest), "utf8"));
  const config = JSON.parse(readFileSync(blob(manifest.config.digest), "utf8"));
  const path = (digest) => `blobs/${digest.replace(":", "/")}`;
  const repoTag = qualified.replace(/^docker\.io\/library\//, "");
  writeFileSync(join(dir, "index.json"), JSON.stringify(index));
  writeFileSync(join(dir, "manifest.json"), JSON.stringify([{ Config: path(manifest.config.digest), RepoTags: [repoTag], Layers: manifest.layers.map((l) => path(l.digest)) }]));
  const mtime = `@${Math.floor(Date.parse(config.created ?? "1970-01-01T00:00:00Z") / 1000)}`;
  execFileSync("tar", ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", `--mtime=${mtime}`, "-cf", `${archive}.tmp`, "-C", dir, "blobs", "index.json", "manifest.json", "oci-layout"]);
  execFileSync("mv", [`${archive}.tmp`, archive]);

  // Each layer's size as stored (what a registry keeps and a node pulls) and unpacked.
  const layers = [];
  for (const layer of manifest.layers) {
    const file = blob(layer.digest);
    const gzipped = /gzip/.test(layer.mediaType);
    const unpacked = gzipped ? await gunzippedBytes(file) : statSync(file).size;
    const stored = gzipped ? statSync(file).size : gzipSync(readFileSync(file), { level: 6 }).length;
    layers.push({ stored, unpacked });
  }
  const app = layers.at(-1);
  const figures = {
    image: qualified,
    base,
    user: config.config?.User,
    entrypoint: config.config?.Entrypoint,
    archive,
    archiveBytes: statSync(archive).size,
    bytes: layers.reduce((n, l) => n + l.unpacked, 0),
    gzipBytes: layers.reduce((n, l) => n + l.stored, 0),
    appLayerBytes: app.unpacked,
    appLayerGzipBytes: app.stored,
    layers: layers.length,
    buildMs: Number(buildMs),
  };
  writeFileSync(figuresFile, `${JSON.stringify(figures, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function gunzippedBytes(file) {
  return new Promise((resolve, reject) => {
    let n = 0;
    createReadStream(file)
      .pipe(createGunzip())
      .on("data", (chunk) => (n += chunk.length))
      .on("end", () => resolve(n))
      .on("error", reject);
  });
}

/** One line: the archive, the image, its sizes and build time. */
function print(f) {
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  console.log(
    `image: ${f.archive} (${f.image}): ${mb(f.bytes)} unpacked, ${mb(f.gzipBytes)} compressed (its layers as gzip, as a registry stores them); ` +
      `the package layer ${mb(f.appLayerBytes)} (${mb(f.appLayerGzipBytes)} compressed); built in ${(f.buildMs / 1000).toFixed(1)} s on ${f.base}`,
  );
}
