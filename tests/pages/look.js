// Everything wrong with what the play page shows now, as sentences (an empty list when all
// is well): test_page_look.py evaluates it in the page at every turn.
(opts) => {
  const bad = [];
  const vw = innerWidth, vh = innerHeight;
  const shown = (e) => {
    if (e.closest("[aria-hidden=true]")) return false;
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    const cs = getComputedStyle(e);
    return cs.visibility !== "hidden" && cs.display !== "none" && Number(cs.opacity) > 0;
  };
  const name = (e) => e.id ? "#" + e.id : e.tagName.toLowerCase() +
    (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    (e.dataset.slot ? `[slot ${e.dataset.slot}]` : "");
  // A rectangle cut to what the boxes around it that clip (scroll boxes) let show.
  const clip = (e, r) => {
    let { left, top, right, bottom } = r;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === "visible" && cs.overflowY === "visible") continue;
      const c = a.getBoundingClientRect();
      left = Math.max(left, c.left); top = Math.max(top, c.top);
      right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
    }
    return right > left && bottom > top ? { left, top, right, bottom, width: right - left, height: bottom - top } : null;
  };
  // Visible text, line by line (each text node's rectangles).
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.textContent.replace(/\s+/g, " ").trim();
    if (!t || !n.parentElement || !shown(n.parentElement)) continue;
    if (n.parentElement.closest("script, style, details:not([open]) > :not(summary)")) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const rects = [...range.getClientRects()].map((r) => clip(n.parentElement, r))
      .filter((r) => r && r.width > 1 && r.height > 1);
    if (!rects.length) continue;
    texts.push({ t, e: n.parentElement, rects });
    const id = t.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/);
    if (id) bad.push(`identifier ${id[0]} in ${name(n.parentElement)}: "${t.slice(0, 80)}"`);
    if (/[{\[]\s*"[^"]*"\s*:/.test(t)) bad.push(`raw JSON in ${name(n.parentElement)}: "${t.slice(0, 80)}"`);
  }
  // Boxes whose content does not fit (the ones made to scroll aside).
  for (const e of document.body.querySelectorAll("*")) {
    if (!shown(e) || e.closest("pre, .log, #moves, [data-scrolls], svg")) continue;
    const cs = getComputedStyle(e);
    if (cs.display.startsWith("inline") && cs.display !== "inline-block" && cs.display !== "inline-flex") continue;
    const over = e.scrollWidth > e.clientWidth + 1 ? `${e.scrollWidth} > ${e.clientWidth} px wide` :
      e.scrollHeight > e.clientHeight + 1 && cs.overflowY !== "visible" ? `${e.scrollHeight} > ${e.clientHeight} px high` : null;
    if (over && e.clientWidth > 0) bad.push(`overflows its box: ${name(e)} "${(e.innerText || "").replace(/\s+/g, " ").slice(0, 50)}" (${over})`);
  }
  const doc = document.scrollingElement;
  if (doc.scrollWidth > vw + 1) bad.push(`the page scrolls sideways: ${doc.scrollWidth} > ${vw} px`);
  // Text on text.
  const lines = texts.flatMap((x) => x.rects.map((r) => ({ ...x, r })));
  for (let i = 0; i < lines.length; i++) for (let j = i + 1; j < lines.length; j++) {
    const a = lines[i], b = lines[j];
    if (a.e === b.e || a.e.contains(b.e) || b.e.contains(a.e)) continue;
    const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
    const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
    if (w > 1.5 && h > 1.5) bad.push(`text on text: "${a.t.slice(0, 30)}" (${name(a.e)}) and "${b.t.slice(0, 30)}" (${name(b.e)})`);
  }
  const box = (sel) => { const e = document.querySelector(sel); return e && shown(e) ? e.getBoundingClientRect() : null; };
  if (opts.fold) {  // all of the table in the window, without scrolling
    for (const [what, sel] of [["the opponent's city", "[data-city=player1]"], ["your city", "[data-city=player2]"],
        ["the structure", "#table"], ["the military track", "#military"], ["the progress tokens", "#boardtokens"],
        ["the move panel", "#actions"]]) {
      const r = box(sel);
      if (!r) bad.push(`${what} is not shown`);
      else if (r.top < -1 || r.bottom > vh + 1 || r.left < -1 || r.right > vw + 1)
        bad.push(`${what} is not all in the ${vw}x${vh} window (${r.left.toFixed(0)}-${r.right.toFixed(0)} x ${r.top.toFixed(0)}-${r.bottom.toFixed(0)})`);
    }
    if (doc.scrollTop > 0) bad.push("the page was scrolled");
  }
  if (opts.apart) {  // the structure and the choices never on top of each other
    const panel = document.querySelector("#actions");
    const pyr = document.querySelector("#table .pyramid, #table .draft");
    if (panel && ["fixed", "sticky"].includes(getComputedStyle(panel).position))
      bad.push(`the move panel is ${getComputedStyle(panel).position} over the page`);
    const a = panel && box("#actions"), b = pyr && pyr.getBoundingClientRect();
    if (a && b && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1 && Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1)
      bad.push("the move panel and the structure meet");
  }
  return bad;
}
