// npm run build: generate the wire code from ../../protos, bundle the page with esbuild, and
// write it with its html and css into the Python package's static folder (service/http/static),
// which `cardgames serve` serves at /. build.json records a hash of every source the build read;
// tests/web/test_build.py fails when the sources have changed since (rebuild: npm ci && npm run build).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const out = join(repo, "service", "http", "static");

execFileSync(join(here, "node_modules", ".bin", "buf"), ["generate", join(repo, "protos"), "--template", "buf.gen.yaml"],
  { cwd: here, stdio: "inherit" });

function files(folder, keep) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return name === "gen" || name === "node_modules" ? [] : files(path, keep);
    return keep(name) ? [path] : [];
  });
}

/** The sources of the build, as the test lists them: the page's own files and the protos. */
export function sources() {
  const own = ["package.json", "package-lock.json", "build.mjs", "buf.gen.yaml", "tsconfig.json"].map((name) => join(here, name));
  return [
    ...own,
    ...files(join(here, "src"), (name) => name.endsWith(".ts")),
    ...files(join(here, "static"), () => true),
    ...files(join(repo, "protos", "cardgames", "v1"), (name) => name.endsWith(".proto")),
  ].map((path) => relative(repo, path).split("\\").join("/")).sort();
}

export function sourcesHash() {
  const hash = createHash("sha256");
  for (const path of sources()) {
    hash.update(path);
    hash.update("\0");
    hash.update(readFileSync(join(repo, path)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.ts")],
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  outfile: join(out, "app.js"),
  legalComments: "none",
  logLevel: "info",
});
// The stylesheet minified by esbuild, the html with the whitespace between its tags taken out.
await build({ entryPoints: [join(here, "static", "style.css")], minify: true, outfile: join(out, "style.css"), logLevel: "info" });
const html = readFileSync(join(here, "static", "index.html"), "utf8").replace(/>\s+</g, "><").trim();
writeFileSync(join(out, "index.html"), `${html}\n`);
writeFileSync(join(out, "build.json"), `${JSON.stringify({ sources: sourcesHash(), files: sources().length }, null, 2)}\n`);
console.log(`built ${relative(repo, out)} from ${sources().length} sources`);
