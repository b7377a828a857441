// Sorting a table by a column: each <th> holds a <button>, each cell a data-sort value (a
// number, or text); cells without one (an unknown figure) always go last. A first click sorts
// the best first: descending, or ascending where the <th> says data-first="ascending" (a
// rank, a cost, a loss); a second click turns the order round.
(function () {
  for (const table of document.querySelectorAll("table.sortable")) {
    const heads = Array.from(table.tHead.rows[0].cells);
    heads.forEach((th, col) => {
      const button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", () => {
        const now = th.getAttribute("aria-sort");
        const descending = now ? now === "ascending" : th.dataset.first !== "ascending";
        heads.forEach((h) => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        const body = table.tBodies[0];
        const key = (row) => {
          const v = row.cells[col].dataset.sort;
          if (v === undefined || v === "") return null;
          const n = Number(v);
          return Number.isNaN(n) ? v : n;
        };
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const x = key(a), y = key(b);
          if (x === null || y === null) return x === null ? (y === null ? 0 : 1) : -1;
          const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return descending ? -c : c;
        });
        for (const row of rows) body.appendChild(row);
      });
    });
  }
})();
