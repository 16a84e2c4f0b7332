// The book's own fixes to its theme's behaviour (served from book/_static by book/_ext/site_scripts.py).
(function () {
  "use strict";
  function ready(cb) {
    if (document.readyState !== "loading") { cb(); } else { document.addEventListener("DOMContentLoaded", cb); }
  }

  // 1. Sidebar and contents toggles. The page has two copies of each toggle button (one in the header navbar,
  // one in the article header). pydata-sphinx-theme 0.17 and sphinx-book-theme 1.3 bind their click handlers
  // with document.querySelector, i.e. to the first copy only, which the theme hides (sphinx-book-theme #917,
  // fixed upstream by PR #991 in a release that needs Sphinx 8). A click on another copy is passed to the first.
  ready(function () {
    [".primary-toggle", ".secondary-toggle"].forEach(function (selector) {
      var copies = document.querySelectorAll(selector);
      for (var i = 1; i < copies.length; i++) {
        copies[i].addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          copies[0].click();
        });
      }
    });
  });

  // 2. Solution titles. sphinx-togglebutton 0.4 makes an admonition's whole title toggle it, but its handler
  // only knows clicks on the title itself, its button or the button's icon; a click on anything else in the
  // title (the link to the exercise that sphinx-exercise puts in a solution's title, a formula) reads an
  // undeclared global `button`: "button is not defined", or, once another solution was toggled, toggles that
  // one. Clicks inside such a title are handled here first: a link just follows, anything else toggles the
  // title's own admonition.
  document.addEventListener("click", function (event) {
    var title = event.target.closest ? event.target.closest(".admonition-title") : null;
    if (!title || !title.dataset.button) { return; }   // togglebutton marks the titles it made clickable
    event.stopPropagation();
    if (event.target.closest("a")) { return; }
    var button = document.getElementById(title.dataset.button);
    if (button && typeof window.toggleHidden === "function") { window.toggleHidden(button); }
  }, true);

  // 3. Explore without a kernel. Where the live controls are off (the book's build), neurips24.interact draws
  // the figure for a few values of one control and writes them as frames under a range slider
  // (div.neurips24-sweep); moving the slider shows the frame of the value it points at.
  ready(function () {
    document.querySelectorAll(".neurips24-sweep").forEach(function (sweep) {
      var slider = sweep.querySelector("input[type=range]");
      var output = sweep.querySelector("output");
      var frames = sweep.querySelectorAll(".neurips24-sweep-frame");
      if (!slider || !frames.length) { return; }
      slider.addEventListener("input", function () {
        var index = Number(slider.value);
        frames.forEach(function (frame, i) { frame.hidden = i !== index; });
        if (output && frames[index]) { output.textContent = frames[index].dataset.value; }
      });
    });
  });

  // 4. Figures at full size. On a phone a multi-panel figure is scaled to the column; a click (or Enter) on a
  // figure opens it at its own size in an overlay that scrolls sideways; a click or Escape closes it.
  ready(function () {
    var overlay = null;
    function close() { if (overlay) { overlay.remove(); overlay = null; } }
    function open(img) {
      close();
      overlay = document.createElement("div");
      overlay.className = "neurips24-zoom";
      overlay.setAttribute("role", "dialog");
      overlay.setAttribute("aria-label", "Figure at full size (click or Escape to close)");
      var big = img.cloneNode();
      big.removeAttribute("width"); big.removeAttribute("height"); big.removeAttribute("style");
      overlay.appendChild(big);
      overlay.addEventListener("click", close);
      document.body.appendChild(overlay);
    }
    document.querySelectorAll(".cell_output img").forEach(function (img) {
      img.classList.add("neurips24-zoomable");
      img.tabIndex = 0;
      img.addEventListener("click", function () { open(img); });
      img.addEventListener("keydown", function (e) { if (e.key === "Enter") { open(img); } });
    });
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") { close(); } });
  });
})();

