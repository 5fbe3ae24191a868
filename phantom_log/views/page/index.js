// The index of a folder of replay pages: a click on a column's heading sorts the rows by
// it (again: the other way). Numbers inside the text sort as numbers ("stage 10" after
// "stage 9"); the rows' own order is kept among equals.
(function () {
  "use strict";
  var table = document.getElementById("records");
  var body = table.tBodies[0];
  var headings = Array.prototype.slice.call(table.querySelectorAll("th"));
  function sortBy(column) {
    var heading = headings[column];
    var ascending = heading.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows).map(function (row, index) {
      return { row: row, index: index, key: row.cells[column].textContent };
    });
    rows.sort(function (a, b) {
      var order = a.key.localeCompare(b.key, undefined, { numeric: true, sensitivity: "base" });
      return (ascending ? order : -order) || a.index - b.index;
    });
    rows.forEach(function (item) {
      body.appendChild(item.row);
    });
    headings.forEach(function (other) {
      other.setAttribute("aria-sort", other === heading ? (ascending ? "ascending" : "descending") : "none");
    });
  }
  headings.forEach(function (heading, column) {
    heading.querySelector("button").addEventListener("click", function () {
      sortBy(column);
    });
  });
})();
