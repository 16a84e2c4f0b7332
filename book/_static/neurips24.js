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

  // 1b. Accessible names. The header's sidebar toggles carry only a tooltip (title); they get the name of their
  // navbar copy ("Site navigation", "On this page"). sphinx-togglebutton names every toggle it adds "Toggle
  // hidden content"; each gets its admonition's title instead ("Show or hide: Solution to Exercise 18.1 (...)").
  // The toggle buttons are added by togglebutton.js on DOMContentLoaded after this file's handler: hence the
  // timeout, which runs after every DOMContentLoaded handler.
  function nameToggles() {
    [".primary-toggle", ".secondary-toggle"].forEach(function (selector) {
      var copies = document.querySelectorAll(selector);
      var named = Array.prototype.find.call(copies, function (b) { return b.getAttribute("aria-label"); });
      copies.forEach(function (b) {
        if (!b.getAttribute("aria-label")) {
          b.setAttribute("aria-label", named ? named.getAttribute("aria-label") : (b.title || "Toggle sidebar"));
        }
      });
    });
    document.querySelectorAll("button.toggle-button").forEach(function (button) {
      var target = document.getElementById(button.dataset.target || "");
      var title = target ? target.querySelector(".admonition-title") : null;
      var text = title ? title.textContent.replace(/\s+/g, " ").trim() : "";
      button.setAttribute("aria-label", text ? "Show or hide: " + text : "Show or hide the hidden content");
    });
  }
  ready(function () { setTimeout(nameToggles, 0); });

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
  // figure opens it at its own size in an overlay that scrolls sideways, with a close button that takes the
  // focus; a click, the button or Escape closes it and gives the focus back to the figure. A figure shown at
  // under 80 % of its own width says so ("Tap to enlarge"). A figure whose alternative text is a file name (what
  // myst-nb writes for an output image) gets its caption's text, or else "Figure", instead.
  ready(function () {
    var overlay = null, opener = null;
    function close() {
      if (!overlay) { return; }
      overlay.remove(); overlay = null;
      if (opener) { opener.focus(); opener = null; }
    }
    function open(img) {
      close();
      opener = img;
      overlay = document.createElement("div");
      overlay.className = "neurips24-zoom";
      overlay.setAttribute("role", "dialog");
      overlay.setAttribute("aria-modal", "true");
      overlay.setAttribute("aria-label", "Figure at full size");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "neurips24-zoom-close";
      button.setAttribute("aria-label", "Close the figure");
      button.textContent = "\u00d7 Close";
      button.addEventListener("click", function (e) { e.stopPropagation(); close(); });
      var big = img.cloneNode();
      big.removeAttribute("width"); big.removeAttribute("height"); big.removeAttribute("style");
      big.classList.remove("neurips24-zoomable");
      overlay.appendChild(button);
      overlay.appendChild(big);
      overlay.addEventListener("click", close);
      document.body.appendChild(overlay);
      button.focus();
    }
    function caption(img) {
      var fig = img.closest("figure");
      var cap = fig && fig.querySelector("figcaption");
      return cap ? cap.innerText.replace(/\s+/g, " ").trim() : "";
    }
    document.querySelectorAll(".cell_output img").forEach(function (img) {
      img.classList.add("neurips24-zoomable");
      img.tabIndex = 0;
      if (!img.alt || /[\/\\]|\.(png|jpe?g|svg|gif)$/i.test(img.alt) || /^_build|^\.\./.test(img.alt)) {
        img.alt = caption(img) || "Figure";
      }
      img.addEventListener("click", function () { open(img); });
      img.addEventListener("keydown", function (e) { if (e.key === "Enter") { open(img); } });
      function hint() {
        var small = img.naturalWidth > 0 && img.clientWidth > 0 && img.clientWidth < 0.8 * img.naturalWidth;
        var next = img.nextElementSibling;
        var has = next && next.classList.contains("neurips24-zoom-hint");
        if (small && !has) {
          var h = document.createElement("div");
          h.className = "neurips24-zoom-hint";
          h.textContent = "Tap or click the figure to enlarge it";
          img.insertAdjacentElement("afterend", h);
        } else if (!small && has) { next.remove(); }
      }
      if (img.complete) { hint(); } else { img.addEventListener("load", hint); }
      window.addEventListener("resize", hint);
    });
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") { close(); } });
  });
})();
