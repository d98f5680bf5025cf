// Shows the download control's "downloaded" state once it has been used.
// The link works without this script; it only adds the feedback.
(function () {
  "use strict";
  var link = document.querySelector("[data-ff-download]");
  if (!link) {
    return;
  }
  var state = link.querySelector("[data-ff-state]");
  link.addEventListener("click", function () {
    link.classList.add("is-downloaded");
    if (state) {
      state.textContent = "Downloaded";
    }
  });
})();
