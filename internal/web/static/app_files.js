// Copy buttons of the file list and the file page (app_files.html,
// app_file.html). Without this script the links stay in read-only inputs
// that can be selected and copied by hand; with it each gets a Copy button.
"use strict";
(function () {
  function selectAll(input) {
    input.focus();
    input.select();
    input.setSelectionRange(0, input.value.length);
  }

  // The app's Permissions-Policy denies clipboard-write, so
  // navigator.clipboard usually refuses; execCommand("copy") on a selection
  // made by the click itself still works in every current browser.
  function copy(input) {
    selectAll(input);
    var done = false;
    try {
      done = document.execCommand("copy");
    } catch (e) {
      done = false;
    }
    if (done || !navigator.clipboard) {
      return Promise.resolve(done);
    }
    return navigator.clipboard.writeText(input.value).then(
      function () { return true; },
      function () { return false; }
    );
  }

  function setup(button) {
    var input = document.getElementById(button.getAttribute("data-copy"));
    if (!input) {
      return;
    }
    var status = button.parentNode.querySelector(".copy-status");
    var timer = 0;
    button.hidden = false;
    input.addEventListener("focus", function () { input.select(); });
    button.addEventListener("click", function () {
      copy(input).then(function (ok) {
        if (!status) {
          return;
        }
        status.textContent = ok ? "Copied" : "Press Ctrl+C (⌘C) to copy";
        clearTimeout(timer);
        timer = setTimeout(function () { status.textContent = ""; }, 4000);
      });
    });
  }

  var buttons = document.querySelectorAll("button[data-copy]");
  for (var i = 0; i < buttons.length; i++) {
    setup(buttons[i]);
  }
})();
