// The upload panel of the file list (templates/app_upload.html): files
// chosen with the picker or dropped on the panel are uploaded at once,
// several in parallel, through the tus endpoint with tus-js-client
// (tus.min.js), so that a dropped connection resumes where it stopped
// (retries, and the fingerprint kept in localStorage across reloads). Each
// file shows a progress bar with bytes, percent and speed, then its public
// link; when every upload has ended the file list is refreshed in place.
// Without this script, or without tus, the panel is a plain form.
(function () {
  "use strict";
  var form = document.querySelector(".upload-form");
  if (!form || !form.dataset.tus || !window.tus || !window.tus.isSupported) return;
  var input = form.querySelector(".upload-input");
  var drop = form.querySelector(".upload-drop");
  var list = form.querySelector(".upload-list");
  var status = form.querySelector(".upload-status");
  var headers = {};
  headers[form.dataset.csrfHeader] = form.dataset.csrf;
  var active = 0, done = 0, failed = 0;
  form.classList.add("upload-js");

  function bytes(n) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n : n.toFixed(n < 10 ? 1 : 0)) + " " + units[i];
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  // message returns what to tell the person about a failed upload: the
  // server's own words when it answered (quota, expired page), else the
  // network failure.
  function message(err) {
    var res = err && err.originalResponse;
    if (res) {
      var body = (res.getBody() || "").trim().replace(/^ERR_[A-Z_]+: /, "");
      if (body) return body;
      return "The server answered " + res.getStatus() + ".";
    }
    return "The connection failed. Check your network and press Retry: the upload continues where it stopped.";
  }

  function announce() {
    var parts = [];
    if (active) parts.push(active + (active === 1 ? " upload" : " uploads") + " in progress");
    if (done) parts.push(done + (done === 1 ? " file" : " files") + " uploaded");
    if (failed) parts.push(failed + " failed");
    status.textContent = parts.join(", ") + (parts.length ? "." : "");
  }

  // refreshList replaces the file list with the server's current one.
  function refreshList() {
    fetch(location.href, { credentials: "same-origin" }).then(function (res) {
      return res.ok ? res.text() : Promise.reject(res.status);
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var sel = ".files-list, .files-empty";
      var fresh = doc.querySelector(sel), old = document.querySelector(sel);
      if (fresh && old) old.replaceWith(document.importNode(fresh, true));
    }).catch(function () { /* the list shows the files on the next visit */ });
  }

  function ended(ok) {
    active--;
    if (ok) done++; else failed++;
    announce();
    if (active === 0 && done > 0) refreshList();
  }

  // The link settings of the form's "Link settings" panel, as the tus
  // upload's metadata (the server checks them when the upload is created).
  function linkMetadata(meta) {
    var expiry = form.querySelector(".upload-expiry");
    var oneTime = form.querySelector(".upload-one-time");
    var password = form.querySelector(".upload-password");
    if (expiry && expiry.value) meta.expiresIn = expiry.value;
    if (oneTime && oneTime.checked) meta.maxDownloads = "1";
    if (password && password.value) meta.password = password.value;
    // Other fields that name their metadata key (a file request's sender).
    var extra = form.querySelectorAll("[data-meta]");
    for (var i = 0; i < extra.length; i++) {
      if (extra[i].value) meta[extra[i].dataset.meta] = extra[i].value;
    }
    return meta;
  }

  function start(file) {
    var item = el("li", "upload-item");
    var name = el("span", "upload-name", file.name);
    var button = el("button", "btn btn-quiet", "Cancel");
    button.type = "button";
    var bar = el("progress");
    bar.max = 100; bar.value = 0;
    bar.setAttribute("aria-label", "Upload of " + file.name);
    var meta = el("p", "upload-meta", "Waiting… 0 of " + bytes(file.size));
    item.append(name, button, bar, meta);
    list.append(item);

    var samples = [];
    var upload = new window.tus.Upload(file, {
      endpoint: form.dataset.tus,
      headers: headers,
      metadata: linkMetadata({ filename: file.name, filetype: file.type || "application/octet-stream" }),
      retryDelays: [0, 1000, 3000, 5000, 10000, 20000, 30000],
      removeFingerprintOnSuccess: true,
      onProgress: function (sent, total) {
        var now = Date.now();
        samples.push([now, sent]);
        while (samples.length > 2 && now - samples[0][0] > 3000) samples.shift();
        var first = samples[0], secs = (now - first[0]) / 1000;
        var speed = secs > 0 ? (sent - first[1]) / secs : 0;
        var pct = total ? Math.floor(sent / total * 100) : 100;
        bar.value = pct;
        meta.textContent = bytes(sent) + " of " + bytes(total) + " (" + pct + "%)" +
          (speed > 0 ? " · " + bytes(speed) + "/s" : "");
      },
      onSuccess: function (payload) {
        var res = payload && payload.lastResponse;
        var url = res && res.getHeader("Fileframe-File-Url");
        var page = res && res.getHeader("Fileframe-File-Page");
        item.classList.add("upload-done");
        bar.value = 100;
        meta.textContent = "Uploaded, " + bytes(file.size) + ".";
        button.remove();
        if (url) {
          var link = el("a", "upload-link", url);
          link.href = url;
          var p = el("p", "upload-link");
          p.append("Public link: ", link);
          if (page) {
            var details = el("a", "", "Details");
            details.href = page;
            p.append(" · ", details);
          }
          item.append(p);
        }
        ended(true);
      },
      onError: function (err) {
        item.classList.add("upload-failed");
        meta.textContent = message(err);
        meta.setAttribute("role", "alert");
        button.textContent = "Retry";
        ended(false);
      }
    });

    function begin() {
      active++;
      announce();
      item.classList.remove("upload-failed");
      meta.removeAttribute("role");
      button.textContent = "Cancel";
      upload.findPreviousUploads().then(function (previous) {
        if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      });
    }

    button.addEventListener("click", function () {
      if (button.textContent === "Retry") {
        failed--;
        begin();
        return;
      }
      upload.abort(true); // also removes what reached the server
      item.remove();
      active--;
      announce();
    });
    begin();
  }

  function startAll(files) {
    for (var i = 0; i < files.length; i++) start(files[i]);
  }

  input.addEventListener("change", function () {
    startAll(input.files);
    input.value = "";
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    startAll(input.files);
    input.value = "";
  });
  ["dragenter", "dragover"].forEach(function (type) {
    drop.addEventListener(type, function (e) {
      e.preventDefault();
      drop.classList.add("upload-over");
    });
  });
  ["dragleave", "drop"].forEach(function (type) {
    drop.addEventListener(type, function () { drop.classList.remove("upload-over"); });
  });
  drop.addEventListener("drop", function (e) {
    e.preventDefault();
    if (e.dataTransfer && e.dataTransfer.files.length) startAll(e.dataTransfer.files);
  });
})();
