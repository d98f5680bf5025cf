// Fileframe's PDF preview (content_preview.go): the first page of the PDF
// named by #pdf's data-src (data-length bytes long), drawn into a canvas
// by pdf.js. It runs in a sandboxed frame of the content origin;
// pdf.worker.min.mjs, loaded before it, runs pdf.js's parser in this
// thread (no Worker: the frame's CSP has worker-src 'none').
//
// pdf.js is given a range transport: every byte it reads is a Range
// request for the chunk it needs, never a request for the whole file
// (which pdf.js's own loader starts with, and which a server on a fast
// link has largely sent before the loader cancels it).
import { getDocument, PDFDataRangeTransport } from "./pdf.min.mjs";

const root = document.getElementById("pdf");
const canvas = root.querySelector("canvas");
const src = root.dataset.src;

function done(state) {
  document.documentElement.dataset.state = state;
}

function fail() {
  root.querySelector("p").hidden = false;
  done("error");
}

class RangeTransport extends PDFDataRangeTransport {
  requestDataRange(begin, end) {
    // What was asked for, for the tests (browser_preview_test.go).
    (window.ranges ||= []).push([begin, end]);
    fetch(src, { headers: { Range: `bytes=${begin}-${end - 1}` }, credentials: "omit" })
      .then((r) => {
        if (r.status !== 206) throw new Error(`status ${r.status}`);
        return r.arrayBuffer();
      })
      .then((b) => this.onDataRange(begin, new Uint8Array(b)))
      .catch(fail);
  }
}

async function show() {
  const length = Number(root.dataset.length);
  const task = getDocument({
    range: new RangeTransport(length, null),
    length,
    rangeChunkSize: 65536,
    // Only the chunks the first page needs: no fetching of the rest in
    // the background, no streaming.
    disableAutoFetch: true,
    disableStream: true,
    // No WebAssembly decoders, no renderer worker, no XFA forms.
    useWasm: false,
    disableWorkerRendering: true,
    enableXfa: false,
    stopAtErrors: false,
  });
  const pdf = await task.promise;
  const page = await pdf.getPage(1);
  const base = page.getViewport({ scale: 1 });
  const width = Math.max(1, root.clientWidth || 600);
  const ratio = Math.min(window.devicePixelRatio || 1, 2);
  const viewport = page.getViewport({ scale: (width / base.width) * ratio });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = Math.floor(viewport.width / ratio) + "px";
  canvas.style.height = Math.floor(viewport.height / ratio) + "px";
  await page.render({ canvasContext: canvas.getContext("2d"), viewport }).promise;
  done("rendered");
}

show().catch(fail);
