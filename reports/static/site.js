// webnn-harness report: sortable tables and row filters. Vanilla JS, no network.
(function () {
  "use strict";

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) return numeric ? -Infinity : "";
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    var n = parseFloat(raw);
    return isNaN(n) ? -Infinity : n;
  }

  function makeSortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, index) {
      var kind = th.getAttribute("data-sort");
      if (!kind) return;
      th.tabIndex = 0;
      function sort() {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var numeric = kind === "num";
        rows.sort(function (a, b) {
          var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return ascending ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  }

  function setUpFilters(box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    if (!table) return;
    var controls = box.querySelectorAll("[data-filter]");
    var shown = box.querySelector(".shown");
    function apply() {
      var wanted = {};
      Array.prototype.forEach.call(controls, function (c) { wanted[c.getAttribute("data-filter")] = c.value.trim().toLowerCase(); });
      var visible = 0, rows = table.tBodies[0].rows;
      Array.prototype.forEach.call(rows, function (row) {
        var ok = true;
        Object.keys(wanted).forEach(function (key) {
          var want = wanted[key];
          if (!ok || !want) return;
          if (key === "text") {
            ok = row.textContent.toLowerCase().indexOf(want) !== -1;
          } else {
            var have = (row.getAttribute("data-" + key) || "").toLowerCase().split(" ");
            ok = have.indexOf(want) !== -1;
          }
        });
        row.classList.toggle("hidden", !ok);
        if (ok) visible += 1;
      });
      if (shown) shown.textContent = visible + " of " + rows.length + " shown";
    }
    // Filters can be preset from the address: conformance.html?status=fail&ops=conv2d
    var params = new URLSearchParams(window.location.search);
    Array.prototype.forEach.call(controls, function (c) {
      var preset = params.get(c.getAttribute("data-filter"));
      if (preset !== null) c.value = preset;
      c.addEventListener("input", apply);
      c.addEventListener("change", apply);
    });
    apply();
  }

  document.querySelectorAll("table.sortable").forEach(makeSortable);
  document.querySelectorAll(".filters[data-table]").forEach(setUpFilters);
})();
