// folio browse in a real browser: Debian's chromium, driven by playwright-core (which downloads
// no browser of its own). What a person would do and see: the index, search as you type and the
// results page, a skill, one of its references and back through the backlink, the same with
// JavaScript off, a phone-sized window, a tree whose pages hold script (nothing runs), and the
// embedded manual. Screenshots go to $SCREENSHOTS (default target/browse-screenshots).
//
// Run by tests/browser/run, which builds folio and installs playwright-core first.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import path from "node:path";
import { chromium } from "playwright-core";

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const folio = process.env.FOLIO_BIN ?? path.join(repo, "target/debug/folio");
const shots = process.env.SCREENSHOTS ?? path.join(repo, "target/browse-screenshots");
mkdirSync(shots, { recursive: true });

/** Starts `folio browse --port 0 …` and resolves with its address (the first line it prints). */
function browse(args) {
  const child = spawn(folio, ["browse", "--port", "0", ...args], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", (line) => resolve(line.trim()));
    child.once("exit", (code) => reject(new Error(`folio browse exited with ${code} before printing its address`)));
  });
  return { child, url };
}

const servers = [];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  // As this machine's probe runs it: no sandbox as root, and none of Chromium's own network
  // traffic (the machine's closed network refuses it).
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
let failed = false;
const step = async (name, run) => {
  try {
    await run();
    console.log(`ok - ${name}`);
  } catch (error) {
    failed = true;
    console.log(`not ok - ${name}\n${error.stack ?? error}`);
  }
};

try {
  const fixture = browse(["--content", "tests/fixtures/basic/content"]);
  servers.push(fixture.child);
  const base = await fixture.url;
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/$/);

  await step("the index lists the skills and the docs", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const requests = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(base);
    assert.equal(await page.locator("main h1").textContent(), "Basic fixture");
    const card = page.locator("ul.cards li", { hasText: "fill-forms" });
    assert.match(await card.textContent(), /Fill PDF forms from structured data/);
    assert.match(await card.locator(".meta").textContent(), /3 files/);
    assert.ok(await page.locator("#docs a", { hasText: "guides/" }).isVisible());
    await page.screenshot({ path: path.join(shots, "index.png"), fullPage: true });
    assert.deepEqual(requests.filter((url) => !url.startsWith(base)), [], "nothing is fetched from elsewhere");
    await page.close();
  });

  await step("search as you type shows results under the box, and Enter opens the results page", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(base);
    await page.locator("header input[name=q]").pressSequentially("install", { delay: 30 });
    const suggest = page.locator("#suggest");
    await suggest.locator("ol.hits li").first().waitFor();
    assert.match(await suggest.locator("ol.hits li").first().textContent(), /Install/);
    assert.ok(await suggest.locator("mark").first().isVisible(), "matched words are marked");
    await page.screenshot({ path: path.join(shots, "search-as-you-type.png") });
    await page.locator("header input[name=q]").press("Enter");
    await page.waitForURL(/\/search\?q=install/);
    assert.match(await page.locator(".count").textContent(), /results? for/);
    await page.screenshot({ path: path.join(shots, "search.png"), fullPage: true });
    await page.close();
  });

  await step("a skill, one of its references, and back through the backlink", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(base);
    await page.locator("ul.cards a.name", { hasText: "fill-forms" }).click();
    await page.waitForURL(`${base}skills/fill-forms/`);
    assert.equal(await page.locator("header.skill h1").textContent(), "fill-forms");
    assert.ok(await page.locator("ul.tree a", { hasText: "fields.md" }).isVisible(), "the file tree shows the reference");
    await page.screenshot({ path: path.join(shots, "skill.png"), fullPage: true });
    await page.locator("article a", { hasText: "the field reference" }).click();
    await page.waitForURL(`${base}skills/fill-forms/references/fields.md`);
    assert.ok(await page.locator("article h1").isVisible());
    await page.screenshot({ path: path.join(shots, "reference.png"), fullPage: true });
    await page.locator("ul.backlinks a", { hasText: "fill-forms" }).click();
    await page.waitForURL(`${base}skills/fill-forms/`);
    await page.close();
  });

  await step("with JavaScript off, the pages and the search form still work", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(base);
    await page.locator("header input[name=q]").fill("forms");
    await page.locator("header button[type=submit]").click();
    await page.waitForURL(/\/search\?q=forms/);
    assert.ok((await page.locator("ol.hits li").count()) >= 1);
    await page.locator("ol.hits li a").first().click();
    assert.ok(await page.locator("article").isVisible());
    await context.close();
  });

  await step("on a phone-sized window nothing runs off the side", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    for (const address of ["", "skills/fill-forms/", "docs/guides/install.md"]) {
      await page.goto(base + address);
      const [scroll, width] = await page.evaluate(() => [document.scrollingElement.scrollWidth, innerWidth]);
      assert.ok(scroll <= width, `${address || "index"}: ${scroll}px wide in a ${width}px window`);
    }
    await page.goto(`${base}skills/fill-forms/`);
    await page.screenshot({ path: path.join(shots, "phone-skill.png"), fullPage: true });
    await page.close();
  });

  const hostile = browse(["--content", "tests/fixtures/web-hostile/content"]);
  servers.push(hostile.child);
  const hostileBase = await hostile.url;
  await step("a tree whose titles and bodies hold script and raw HTML shows them inert", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const dialogs = [];
    page.on("dialog", async (dialog) => { dialogs.push(dialog.message()); await dialog.dismiss(); });
    for (const address of ["", "docs/index.md", "skills/inert-skill/", "skills/inert-skill/scripts/run.sh",
      "raw/skills/inert-skill/assets/pic.svg"]) {
      await page.goto(hostileBase + address);
    }
    await page.goto(`${hostileBase}docs/index.md`);
    assert.match(await page.title(), /^<script>alert\("title"\)<\/script> Index/);
    assert.match(await page.locator("pre.raw-html").first().textContent(), /<script>alert\(2\)<\/script>Raw block/);
    assert.equal(await page.locator("a[href^='javascript:']").count(), 0);
    assert.equal(await page.locator("article iframe, article img[src^='http']").count(), 0);
    await page.screenshot({ path: path.join(shots, "hostile.png"), fullPage: true });
    assert.deepEqual(dialogs, [], "no script from the tree ran");
    await page.close();
  });

  const manual = browse([]);
  servers.push(manual.child);
  const manualBase = await manual.url;
  await step("the embedded manual", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(manualBase);
    assert.equal(await page.locator("main h1").textContent(), "Folio manual");
    await page.locator("#docs ul.docs a", { hasText: "Getting started" }).click();
    await page.waitForURL(`${manualBase}docs/getting-started.md`);
    assert.equal(await page.locator("article h1").textContent(), "Getting started");
    assert.ok((await page.locator("aside .outline a").count()) >= 3, "the sections are listed");
    await page.screenshot({ path: path.join(shots, "manual.png") });
    await page.close();
  });
} finally {
  await browser.close();
  for (const child of servers) child.kill();
}
console.log(failed ? "browser test: FAILED" : `browser test: passed; screenshots in ${shots}`);
process.exit(failed ? 1 : 0);
