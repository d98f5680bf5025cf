// The Firefox side of the browser tests (browser_firefox_test.go): a small
// remote control that the Go test runs as `node driver.mjs WS_URL`. It
// connects with puppeteer-core over WebDriver BiDi to a Firefox that the Go
// test started itself (a puppeteer *launch* would turn Firefox's site
// isolation off), then answers one request per line on stdin with one reply
// per line on stdout:
//
//	{"id": 1, "method": "goto", "params": {"page": 2, "url": "…"}}
//	{"id": 1, "result": "…"}  or  {"id": 1, "error": "…"}
//
// Every test assertion stays in Go; this file only moves the browser.
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const [endpoint] = process.argv.slice(2);
if (!endpoint) {
  console.error("usage: node driver.mjs ws://127.0.0.1:PORT/session");
  process.exit(2);
}

const viewport = { width: 1280, height: 800 };
const browser = await puppeteer.connect({
  browserWSEndpoint: endpoint,
  protocol: "webDriverBiDi",
  // The residual-risk tests load images from httptest's https server, whose
  // certificate no browser trusts; every server of the tests is on loopback.
  acceptInsecureCerts: true,
  defaultViewport: viewport,
  protocolTimeout: 60_000,
});

// pages holds each test's page and its own browser context (cookie jar).
const pages = new Map();
let nextID = 1;

function page(id) {
  const p = pages.get(id);
  if (!p) throw new Error(`no page ${id}`);
  return p.page;
}

// frame returns the page's main frame for an empty prefix, else its first
// other frame whose address starts with prefix.
function frame(id, prefix) {
  const pg = page(id);
  if (!prefix) return pg.mainFrame();
  const f = pg.frames().find(f => f !== pg.mainFrame() && f.url().startsWith(prefix));
  if (!f) throw new Error(`no frame at ${prefix}; frames: ${pg.frames().map(f => f.url()).join(", ")}`);
  return f;
}

const methods = {
  // newPage opens a tab in a browser context of its own.
  async newPage() {
    const context = await browser.createBrowserContext();
    const pg = await context.newPage();
    await pg.setViewport(viewport);
    const id = nextID++;
    pages.set(id, { context, page: pg });
    return id;
  },
  async closePage({ page: id }) {
    const p = pages.get(id);
    pages.delete(id);
    if (p) await p.context.close();
    return true;
  },
  // goto loads url in the page and waits until its document (after any
  // redirect) is complete. BiDi's own navigate, rather than page.goto,
  // which loses a navigation that a redirect moves to another site's
  // process.
  async goto({ page: id, url }) {
    await page(id).mainFrame().browsingContext.navigate(url, "complete");
    return page(id).url();
  },
  // eval evaluates a JavaScript expression in a frame (see frame), awaiting
  // a promise, and answers its value as JSON.
  async eval({ page: id, frame: prefix, expr }) {
    const v = await frame(id, prefix).evaluate(expr);
    return v === undefined ? null : v;
  },
  // frames lists the addresses of the page's frames, the main frame first.
  async frames({ page: id }) {
    return page(id).frames().map(f => f.url());
  },
  // pages lists the addresses of the tabs of the page's browser context.
  async pages({ page: id }) {
    const p = pages.get(id);
    return (await p.context.pages()).map(pg => pg.url());
  },
  // click sends a real left click (WebDriver input actions) at x, y of the
  // viewport.
  async click({ page: id, frame: prefix, x, y }) {
    const pointer = { type: "pointer", id: "__fileframe_mouse", parameters: { pointerType: "mouse" } };
    pointer.actions = [
      { type: "pointerMove", x: Math.round(x), y: Math.round(y) },
      { type: "pointerDown", button: 0 },
      { type: "pointerUp", button: 0 },
    ];
    await frame(id, prefix).browsingContext.performActions([pointer]);
    return true;
  },
  // setCookie sets a cookie in the page's browser context.
  async setCookie({ page: id, cookie }) {
    await pages.get(id).context.setCookie(cookie);
    return true;
  },
};

const out = line => process.stdout.write(JSON.stringify(line) + "\n");
const rl = createInterface({ input: process.stdin });
rl.on("line", async line => {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    out({ id: 0, error: `bad request: ${e.message}` });
    return;
  }
  try {
    const m = methods[req.method];
    if (!m) throw new Error(`unknown method ${req.method}`);
    out({ id: req.id, result: await m(req.params ?? {}) });
  } catch (e) {
    out({ id: req.id, error: String(e && e.message ? e.message : e) });
  }
});
rl.on("close", async () => {
  await browser.disconnect().catch(() => {});
  process.exit(0);
});
out({ id: 0, result: "ready" });
