// ckb report: paging and filtering of long tables, links from pictures to table rows. Works on
// the page's own DOM only; nothing is fetched. Without JavaScript every row is simply shown.
(function () {
  "use strict";
  var tables = [];

  function Pager(table) {
    this.table = table;
    this.rows = Array.prototype.slice.call(table.tBodies[0].rows);
    this.size = parseInt(table.getAttribute("data-page-size"), 10) || 25;
    this.page = 0;
    this.filter = "";
    var bar = document.createElement("div");
    bar.className = "pager";
    this.prev = document.createElement("button");
    this.prev.type = "button";
    this.prev.textContent = "‹ previous";
    this.next = document.createElement("button");
    this.next.type = "button";
    this.next.textContent = "next ›";
    this.info = document.createElement("span");
    this.search = document.createElement("input");
    this.search.type = "search";
    this.search.placeholder = "filter rows";
    this.search.setAttribute("aria-label", "filter the rows of this table");
    bar.appendChild(this.prev);
    bar.appendChild(this.next);
    bar.appendChild(this.info);
    bar.appendChild(this.search);
    table.parentNode.insertBefore(bar, table.nextSibling);
    var self = this;
    this.prev.addEventListener("click", function () { self.show(self.page - 1); });
    this.next.addEventListener("click", function () { self.show(self.page + 1); });
    this.search.addEventListener("input", function () {
      self.filter = self.search.value.toLowerCase();
      self.show(0);
    });
    this.show(0);
  }

  Pager.prototype.visible = function () {
    var f = this.filter;
    if (!f) { return this.rows; }
    return this.rows.filter(function (r) { return r.textContent.toLowerCase().indexOf(f) >= 0; });
  };

  Pager.prototype.show = function (page) {
    var rows = this.visible();
    var pages = Math.max(1, Math.ceil(rows.length / this.size));
    this.page = Math.min(Math.max(page, 0), pages - 1);
    var from = this.page * this.size;
    var to = Math.min(rows.length, from + this.size);
    this.rows.forEach(function (r) { r.classList.add("hidden"); });
    for (var i = from; i < to; i++) { rows[i].classList.remove("hidden"); }
    this.prev.disabled = this.page === 0;
    this.next.disabled = this.page >= pages - 1;
    this.info.textContent = rows.length === 0 ? "no rows" :
      "rows " + (from + 1) + "–" + to + " of " + rows.length;
  };

  Pager.prototype.reveal = function (row) {
    this.search.value = "";
    this.filter = "";
    var index = this.rows.indexOf(row);
    if (index >= 0) { this.show(Math.floor(index / this.size)); }
  };

  function reveal(id) {
    var row = document.getElementById(id);
    if (!row || row.tagName !== "TR") { return; }
    tables.forEach(function (p) { if (p.table.contains(row)) { p.reveal(row); } });
    Array.prototype.forEach.call(document.querySelectorAll("tr.target"), function (r) {
      r.classList.remove("target");
    });
    row.classList.add("target");
    var details = row.closest("details");
    if (details) { details.open = true; }
    row.scrollIntoView({ block: "center" });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table[data-page-size]"), function (t) {
    if (t.tBodies.length && t.tBodies[0].rows.length > (parseInt(t.getAttribute("data-page-size"), 10) || 25)) {
      tables.push(new Pager(t));
    }
  });

  // A module in a graph leads to its row in the module table; its edges stand out.
  Array.prototype.forEach.call(document.querySelectorAll("svg.graph"), function (svg) {
    var rowsFor = svg.getAttribute("data-rows") || "";
    var nodes = svg.querySelectorAll("g.node");
    var edges = svg.querySelectorAll("path.edge");
    function select(node) {
      var key = node.getAttribute("data-module");
      Array.prototype.forEach.call(nodes, function (n) { n.classList.toggle("selected", n === node); });
      Array.prototype.forEach.call(edges, function (e) {
        var touches = e.getAttribute("data-from") === key || e.getAttribute("data-to") === key;
        e.classList.toggle("faded", !touches);
      });
      if (!rowsFor) { return; }
      var rows = document.querySelectorAll("tr[data-rows='" + rowsFor + "']");
      for (var i = 0; i < rows.length; i++) {
        if (rows[i].getAttribute("data-module") === key) {
          history.replaceState(null, "", "#" + rows[i].id);
          reveal(rows[i].id);
          return;
        }
      }
    }
    Array.prototype.forEach.call(nodes, function (node) {
      node.addEventListener("click", function () { select(node); });
      node.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(node); }
      });
    });
  });

  window.addEventListener("hashchange", function () { reveal(location.hash.slice(1)); });
  if (location.hash.length > 1) { reveal(location.hash.slice(1)); }
  document.documentElement.setAttribute("data-ready", "true");
})();
