#!/usr/bin/env node
// The `folio` command of the npm package `folio-mcp-server`: runs the prebuilt binary of the package for this
// platform (an optional dependency, as esbuild and Biome ship theirs), with this process's
// arguments, stdin, stdout and stderr, and exits as it does. Nothing is downloaded at install.
"use strict";
const { spawnSync } = require("node:child_process");

const packages = {
  "linux x64": "folio-mcp-server-linux-x64",
  "linux arm64": "folio-mcp-server-linux-arm64",
  "darwin x64": "folio-mcp-server-darwin-x64",
  "darwin arm64": "folio-mcp-server-darwin-arm64",
  "win32 x64": "folio-mcp-server-win32-x64",
};
const key = `${process.platform} ${process.arch}`;
const name = packages[key];
if (!name) {
  console.error(`folio: there is no prebuilt folio for ${key}; build it from source with cargo`);
  process.exit(1);
}
let binary;
try {
  binary = require.resolve(`${name}/bin/${process.platform === "win32" ? "folio.exe" : "folio"}`);
} catch {
  console.error(`folio: the package ${name}, which holds folio for ${key}, is not installed ` +
    "(installs with --omit=optional or --no-optional leave it out); install folio-mcp-server again without that flag");
  process.exit(1);
}
const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (run.error) {
  console.error(`folio: cannot run ${binary}: ${run.error.message}`);
  process.exit(1);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);
