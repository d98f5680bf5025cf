// The appearance editor's live preview: the frame follows the form as it is
// typed in (debounced), and a colour picker sits beside the accent field.
// Without this script the form's Preview button does the same on request.
(function () {
  "use strict";
  var form = document.querySelector("[data-ap-form]");
  var frame = document.querySelector("[data-ap-frame]");
  if (!form || !frame) {
    return;
  }
  var fields = ["template", "headline", "message", "accent", "logo_remove", "background_remove"];
  var hex = /^#[0-9a-fA-F]{6}$/;
  var base = new URL(frame.getAttribute("src"), location.href);
  var accent = form.querySelector("#ap-accent");
  var swatch = form.querySelector("[data-ap-swatch]");
  var picker = null;

  function previewURL() {
    var u = new URL(base.pathname, location.href);
    var file = base.searchParams.get("file");
    if (file) {
      u.searchParams.set("file", file);
    }
    var data = new FormData(form);
    fields.forEach(function (name) {
      var v = data.get(name);
      if (typeof v === "string" && v !== "") {
        u.searchParams.set(name, v);
      }
    });
    return u.pathname + u.search;
  }

  var timer = 0;
  var shown = frame.getAttribute("src");
  function update() {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var next = previewURL();
      if (next === shown) {
        return;
      }
      shown = next;
      // replace() keeps the preview out of the tab's history.
      try {
        frame.contentWindow.location.replace(next);
      } catch (e) {
        frame.src = next;
      }
    }, 250);
  }

  function showAccent() {
    if (!accent || !hex.test(accent.value)) {
      return;
    }
    if (swatch) {
      swatch.style.backgroundColor = accent.value;
    }
    if (picker) {
      picker.value = accent.value.toLowerCase();
    }
  }

  if (accent) {
    picker = document.createElement("input");
    picker.type = "color";
    picker.setAttribute("aria-label", "Pick the accent colour");
    accent.parentNode.insertBefore(picker, accent);
    accent.parentNode.classList.add("has-picker");
    picker.addEventListener("input", function () {
      accent.value = picker.value;
      update();
    });
  }

  // A new template brings its own accent, unless one was chosen.
  var previous = form.querySelector('input[name="template"]:checked');
  form.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t.name === "template" && t.checked) {
      if (accent && previous && accent.value.toLowerCase() === previous.getAttribute("data-accent")) {
        accent.value = t.getAttribute("data-accent");
      }
      previous = t;
    }
    showAccent();
    update();
  });
  form.addEventListener("input", function () {
    showAccent();
    update();
  });
  showAccent();
})();
