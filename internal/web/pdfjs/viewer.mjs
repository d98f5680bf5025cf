// Fileframe's PDF preview (content_preview.go): the first page of the PDF
// named by #pdf's data-src, drawn into a canvas by pdf.js, loading only
// the ranges that page needs. It runs in a sandboxed frame of the content
// origin; pdf.worker.min.mjs, loaded before it, runs pdf.js's parser in
// this thread (no Worker: the sandbox's CSP has worker-src 'none').
import { getDocument } from "./pdf.min.mjs";

const root = document.getElementById("pdf");
const canvas = root.querySelector("canvas");

function done(state) {
  document.documentElement.dataset.state = state;
}

async function show() {
  const task = getDocument({
    url: root.dataset.src,
    // Ranges only: no streaming of the whole file, no fetching of the
    // rest in the background.
    disableStream: true,
    disableAutoFetch: true,
    rangeChunkSize: 65536,
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
  const scale = width / base.width;
  const ratio = Math.min(window.devicePixelRatio || 1, 2);
  const viewport = page.getViewport({ scale: scale * ratio });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = Math.floor(viewport.width / ratio) + "px";
  canvas.style.height = Math.floor(viewport.height / ratio) + "px";
  await page.render({ canvasContext: canvas.getContext("2d"), viewport }).promise;
  done("rendered");
}

show().catch(() => {
  root.querySelector("p").hidden = false;
  done("error");
});
