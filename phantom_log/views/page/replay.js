// The replay page's script: it draws the positions phantom-log computed and embedded as
// JSON. It applies no rule of the game: every hand, note count, super trump, swap and
// sentence comes from the data. Record text is only ever set as text, never as markup.
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var SUIT_TITLES = { Mi: "Mirror", Ch: "Chandelier", Ri: "Ring", Ma: "Mask" };
  var ROLE_TEXT = { phantom: "the Phantom", christine: "Christine" };
  var ROLE_TITLE = { phantom: "The Phantom", christine: "Christine" };
  var ROLES = ["phantom", "christine"];
  // The analysis's labels (phantom_log.analysis.decisions.Label), from the mildest.
  var LABELS = ["?!", "?", "??"];
  var LABEL_WORDS = { "?!": "inaccuracy", "?": "mistake", "??": "blunder" };
  var data = JSON.parse(document.getElementById("game-data").textContent);
  // The shape of a game, as the engine gives it: the script knows no number of its own.
  var TRICKS_PER_ROUND = data.tricks_per_round;
  var ROUNDS = data.rounds;
  var positions = data.positions;
  var indexById = {};
  positions.forEach(function (position, index) {
    indexById[position.id] = index;
  });
  var current = -1;
  var view = "both";

  function byId(id) {
    return document.getElementById(id);
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  function element(name, className, text, parent) {
    var node = document.createElement(name);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    if (parent) {
      parent.appendChild(node);
    }
    return node;
  }

  function svgElement(name, attributes, parent) {
    var node = document.createElementNS(SVG_NS, name);
    Object.keys(attributes).forEach(function (key) {
      node.setAttribute(key, String(attributes[key]));
    });
    if (parent) {
      parent.appendChild(node);
    }
    return node;
  }

  function svgText(text, attributes, parent) {
    var node = svgElement("text", attributes, parent);
    node.textContent = text;
    return node;
  }

  function suitIcon(suit, size, parent, attributes) {
    var icon = svgElement(
      "svg",
      Object.assign(
        { width: size, height: size, viewBox: "0 0 20 20", class: "suit-icon suit-" + suit, "aria-hidden": "true", focusable: "false" },
        attributes || {}
      ),
      parent
    );
    svgElement("use", { href: "#suit-" + suit }, icon);
    return icon;
  }

  function cardName(code) {
    return SUIT_TITLES[code.slice(0, 2)] + " " + code.slice(2);
  }

  function listText(items) {
    return items.length ? items.join(" and ") : "nothing";
  }

  // -- a card ----------------------------------------------------------------------------

  function cardItem(code, marks, parent, tag) {
    var suit = code.slice(0, 2);
    var item = element(tag || "li", "card suit-" + suit, null, parent);
    var words = [cardName(code)];
    if (marks.played) {
      item.classList.add("played");
      words.push("played in trick " + marks.played);
    }
    if (marks.special) {
      item.classList.add("special");
      words.push("shows the special number");
    }
    if (marks.received) {
      item.classList.add("received");
      words.push("received from the other player");
    }
    item.setAttribute("role", tag ? "img" : "listitem");
    item.setAttribute("aria-label", words.join(", "));
    item.title = words.join(", ");
    element("span", "card-number", code.slice(2), item);
    suitIcon(suit, 20, item);
    element("span", "card-code", code, item);
    if (marks.played) {
      element("span", "mark played-mark", String(marks.played), item).setAttribute("aria-hidden", "true");
    }
    if (marks.special) {
      element("span", "mark special-mark", "★", item).setAttribute("aria-hidden", "true");
    }
    if (marks.received) {
      element("span", "mark received-mark", "⇄", item).setAttribute("aria-hidden", "true");
    }
    return item;
  }

  function cardBack(parent) {
    var item = element("li", "card back", null, parent);
    item.setAttribute("aria-label", "a hidden card");
    item.title = "a hidden card";
    element("span", "card-number", "?", item);
    return item;
  }

  // -- the sheet -------------------------------------------------------------------------

  // The sheet is drawn in the screen's pixels (one unit of its viewBox is one CSS pixel),
  // so that its labels keep their font size on a phone; it is drawn again on a resize.
  // The width inside a picture's border, in CSS pixels (a fraction too: rounding it would
  // draw the picture a little smaller than its labels' font size).
  function innerWidth(svg) {
    var style = window.getComputedStyle(svg);
    var border = parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth);
    return Math.max(svg.getBoundingClientRect().width - border, 200);
  }

  // A picture's height on the page for a drawing ``height`` high: its border added, so
  // that the drawing is not scaled down to fit (boxes are sized border included).
  function setHeight(svg, height) {
    var style = window.getComputedStyle(svg);
    var border = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
    svg.setAttribute("height", String(height + border));
  }

  var sheetWidth = 0;

  function textWidth(svg, text, className) {
    var probe = svgText(text, { x: 0, y: -100, class: className }, svg);
    var width = probe.getComputedTextLength();
    svg.removeChild(probe);
    return width;
  }

  // The bars' labels, from the longest to the shortest: one form for every bar, the
  // longest that fits the narrowest of them, so that no label is cut and all read alike.
  var LABEL_FORMS = [
    { icon: true, text: function (bar) { return bar.suit + " " + bar.title; } },
    { icon: true, text: function (bar) { return bar.title; } },
    { icon: true, text: function (bar) { return bar.suit; } },
    { icon: false, text: function (bar) { return bar.suit; } },
  ];

  function drawSheet(position) {
    var svg = byId("sheet");
    clear(svg);
    var caption = byId("sheet-caption");
    var width = innerWidth(svg);
    sheetWidth = width;
    if (!data.sheet) {
      svg.setAttribute("viewBox", "0 0 " + width + " 40");
      setHeight(svg, 40);
      svgText("No sheet: the record could not be replayed.", { x: 10, y: 25, class: "side-label" }, svg);
      caption.textContent = "No sheet.";
      return;
    }
    var notesCount = data.sheet.bars.reduce(function (sum, bar) {
      return sum + bar.owners.length;
    }, 0);
    var sideWidth = Math.max(textWidth(svg, "Christine", "side-label"), textWidth(svg, "Phantom", "side-label"));
    var left = Math.ceil(sideWidth) + 10;
    var step = Math.min(60, (width - left - 4) / notesCount);
    var radius = Math.max(7, Math.min(14, step / 2 - 2));
    var top = 28;
    var barHeight = 100;
    var centre = top + barHeight / 2;
    var height = top + barHeight + 20;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    setHeight(svg, height);
    var form = LABEL_FORMS.length - 1;
    for (var f = 0; f < LABEL_FORMS.length; f += 1) {
      var fits = data.sheet.bars.every(function (bar) {
        var room = step * bar.owners.length - 8 - (LABEL_FORMS[f].icon ? 20 : 0);
        return textWidth(svg, LABEL_FORMS[f].text(bar), "bar-label") <= room;
      });
      if (fits) {
        form = f;
        break;
      }
    }
    var chosen = LABEL_FORMS[form];
    var note = 0;
    var x = left;
    data.sheet.bars.forEach(function (bar) {
      var barWidth = step * bar.owners.length;
      var superTrump = bar.suit === position.super_trump;
      var rect = svgElement(
        "rect",
        { x: x, y: top, width: barWidth, height: barHeight, class: "bar suit-" + bar.suit + (superTrump ? " super-trump" : "") },
        svg
      );
      svgElement("title", {}, rect).textContent = bar.title + (superTrump ? " (super trump)" : "");
      var labelX = x + 4;
      if (chosen.icon) {
        suitIcon(bar.suit, 16, svg, { x: labelX, y: top - 22 });
        labelX += 20;
      }
      var label = svgText(chosen.text(bar), { x: labelX, y: top - 9, class: "bar-label suit-" + bar.suit }, svg);
      svgElement("title", {}, label).textContent = bar.title;
      if (superTrump) {
        var words = ["super trump", "trump"].filter(function (text) {
          return textWidth(svg, text, "super-trump-label") <= barWidth - 8;
        });
        if (words.length) {
          svgText(words[0], { x: x + 4, y: top + 14, class: "super-trump-label" }, svg);
        }
      }
      for (var i = 0; i < bar.owners.length; i += 1) {
        note += 1;
        var owner = bar.owners.charAt(i);
        var cx = left + step * (note - 1) + step / 2;
        var cy = owner === "C" ? centre - radius - 8 : centre + radius + 8;
        var completed = note <= position.notes;
        var next = note === position.next_note;
        var group = svgElement("g", { class: "note" + (completed ? " disc" : "") + (next ? " next" : "") }, svg);
        svgElement("circle", { cx: cx, cy: cy, r: radius }, group);
        svgText(owner, { x: cx, y: cy + 4, class: "owner", "text-anchor": "middle" }, group);
        svgText(String(note), { x: cx, y: top + barHeight + 15, class: "note-number", "text-anchor": "middle" }, svg);
      }
      x += barWidth;
    });
    svgElement("line", { x1: left, x2: x, y1: centre, y2: centre, class: "centre-line" }, svg);
    svgText("Christine", { x: 4, y: centre - 10, class: "side-label" }, svg);
    svgText("Phantom", { x: 4, y: centre + 20, class: "side-label" }, svg);
    var words = position.notes + " of " + data.notes_per_sheet + " notes completed; ";
    words += position.super_trump ? "super trump " + SUIT_TITLES[position.super_trump] + "." : "no super trump.";
    var names = form >= 2 ? " " + data.sheet.bars.map(function (bar) { return bar.suit + " " + bar.title; }).join(", ") + "." : "";
    caption.textContent = "The sheet: " + words + names + " C: Christine's notes (above the line), P: the Phantom's; a filled disc: a completed note.";
  }

  // -- the hands and the trick -----------------------------------------------------------

  function drawHand(role, position) {
    var list = byId("cards-" + role);
    clear(list);
    var cards = position.hands[role];
    var special = position.special[role];
    var received = position.received[role];
    var hidden = view !== "both" && view !== role;
    var note = byId("note-" + role);
    byId("count-" + role).textContent = "(" + cards.length + (cards.length === 1 ? " card)" : " cards)");
    if (hidden) {
      // Seen from the other side: only the cards that side gave this round are known.
      var known = cards.filter(function (code) {
        return received.indexOf(code) >= 0;
      });
      known.forEach(function (code) {
        cardItem(code, { special: special.indexOf(code) >= 0, received: true }, list);
      });
      for (var i = known.length; i < cards.length; i += 1) {
        cardBack(list);
      }
      note.hidden = false;
      note.textContent = "Hidden from " + ROLE_TEXT[view] + ", who sees only the cards " + (view === "phantom" ? "he" : "she") + " gave this round.";
    } else {
      cards.forEach(function (code) {
        cardItem(code, { special: special.indexOf(code) >= 0, received: received.indexOf(code) >= 0 }, list);
      });
      note.hidden = true;
    }
    if (!cards.length && !position.played[role].length) {
      element("li", "empty", "no card", list);
    }
    // The cards played this round, which both sides saw: greyed, numbered by their trick.
    position.played[role].forEach(function (play) {
      cardItem(play.card, { played: play.trick }, list);
    });
  }

  function swapText(swap, justMade) {
    var start = justMade ? "Swap just made" : "Swap";
    return start + " (after the " + (swap.after === "lead" ? "lead" : "follow") + " card): the Phantom gave " + listText(swap.phantom) + ", Christine gave " + listText(swap.christine) + ".";
  }

  function drawTrick(position) {
    var list = byId("trick-cards");
    clear(list);
    var title = byId("trick-title");
    if (position.trick_cards.length) {
      title.textContent = "Trick " + position.round + "." + position.trick;
    } else if (position.step === "start") {
      title.textContent = "Round " + position.round + ": no card played yet";
    } else {
      title.textContent = "The trick";
    }
    position.trick_cards.forEach(function (play, index) {
      var item = element("li", "play", null, list);
      element("span", "play-label", ROLE_TITLE[play.player] + (index === 0 ? " led" : " played"), item);
      var card = cardItem(play.card, { special: play.special, received: false }, item, "div");
      if (position.winner === play.player) {
        card.classList.add("winner");
      }
    });
    if (position.winner) {
      element("li", "winner-note", ROLE_TITLE[position.winner] + " wins the trick", list);
    }
    var swaps = byId("trick-swaps");
    clear(swaps);
    position.swaps.forEach(function (swap, index) {
      var justMade = position.step === "swap" && index === position.swaps.length - 1;
      element("span", justMade ? "swap just-made" : "swap", swapText(swap, justMade), swaps);
    });
  }

  function drawNotes(position) {
    var box = byId("problem-box");
    clear(box);
    if (position.problem !== null && data.problems[position.problem]) {
      var problem = data.problems[position.problem];
      box.hidden = false;
      element("strong", null, "Illegal: " + problem.code + ":", box);
      element("span", null, " " + problem.message, box);
      if (problem.hint) {
        element("span", "hint", "Hint: " + problem.hint, box);
      }
    } else if (position.step === "problem") {
      box.hidden = false;
      element("strong", null, position.text, box);
    } else {
      box.hidden = true;
    }
    byId("explanation").textContent = position.explanation || "";
    var reviews = byId("reviews");
    clear(reviews);
    position.reviews.forEach(function (review) {
      var line = element("p", "review", null, reviews);
      element("strong", null, "Analysis: ", line);
      var words = ROLE_TITLE[review.player] + "'s " + review.decision;
      if (review.label) {
        element("span", "review-label", review.label + " " + LABEL_WORDS[review.label], line);
        words = ": " + words;
      }
      words += review.cost > 0 ? " cost " + review.cost + " note" + (review.cost === 1 ? "" : "s") : ": a best choice";
      if (review.best.length) {
        words += "; best: " + review.best.join(", ");
      }
      element("span", null, words + ".", line);
    });
    var comment = byId("comment");
    comment.hidden = !position.comment;
    comment.textContent = position.comment ? "Recorder's comment: " + position.comment : "";
    byId("special-number").textContent = position.special_number ? String(position.special_number) : "none yet";
  }

  // -- the notes curve -------------------------------------------------------------------

  // Drawn in the screen's pixels, as the sheet: one panel for the game where each trick
  // gets a slot wide enough to tap, else one panel per round.
  var MIN_SLOT = 34;
  var CURVE_LEFT = 30;
  var CURVE_RIGHT = 4;

  function curveLayout() {
    var svg = byId("curve");
    var width = innerWidth(svg);
    var across = width - CURVE_LEFT - CURVE_RIGHT;
    var panels = across / (TRICKS_PER_ROUND * ROUNDS) >= MIN_SLOT ? 1 : ROUNDS;
    var slots = (TRICKS_PER_ROUND * ROUNDS) / panels;
    var panelHeight = panels === 1 ? 200 : 150;
    return { width: width, slot: across / slots, panels: panels, panelHeight: panelHeight, top: 12, plot: panelHeight - 50 };
  }

  var layout = null;

  function curvePanel(round) {
    return layout.panels === 1 ? 0 : round - 1;
  }

  function curveX(round, trick) {
    // The slot of a trick, its centre; trick 0 is the panel's start.
    var slot = layout.panels === 1 ? (round - 1) * TRICKS_PER_ROUND + trick : trick;
    return CURVE_LEFT + layout.slot * (slot === 0 ? 0 : slot - 0.5);
  }

  function curveY(round, notes) {
    var base = curvePanel(round) * layout.panelHeight + layout.top;
    return base + layout.plot - (layout.plot * notes) / data.notes_per_sheet;
  }

  function drawCurve() {
    var svg = byId("curve");
    clear(svg);
    layout = curveLayout();
    var height = layout.panels * layout.panelHeight;
    svg.setAttribute("viewBox", "0 0 " + layout.width + " " + height);
    setHeight(svg, height);
    var right = layout.width - CURVE_RIGHT;
    for (var panel = 0; panel < layout.panels; panel += 1) {
      var round = layout.panels === 1 ? 1 : panel + 1;
      for (var notes = 0; notes <= data.notes_per_sheet; notes += 3) {
        var y = curveY(round, notes);
        svgElement("line", { x1: CURVE_LEFT, x2: right, y1: y, y2: y, class: "grid" }, svg);
        svgText(String(notes), { x: CURVE_LEFT - 5, y: y + 4, "text-anchor": "end", class: "axis" }, svg);
      }
    }
    var bottom = function (round) {
      return curveY(round, 0);
    };
    for (var r = 1; r <= ROUNDS; r += 1) {
      if (layout.panels === 1 && r > 1) {
        var boundary = CURVE_LEFT + layout.slot * TRICKS_PER_ROUND * (r - 1);
        svgElement("line", { x1: boundary, x2: boundary, y1: curveY(r, data.notes_per_sheet), y2: bottom(r), class: "round-boundary" }, svg);
      }
      var middle = layout.panels === 1 ? CURVE_LEFT + layout.slot * TRICKS_PER_ROUND * (r - 0.5) : CURVE_LEFT + layout.slot * TRICKS_PER_ROUND * 0.5;
      svgText("round " + r, { x: middle, y: bottom(r) + 34, "text-anchor": "middle", class: "axis" }, svg);
    }
    svgElement("line", { id: "curve-now", x1: 0, x2: 0, y1: 0, y2: 0, class: "now" }, svg);
    // The line, a polyline per panel: a round's panel starts from the notes carried in.
    var lines = {};
    var notesBefore = 0;
    var lastRound = 1;
    data.curve.forEach(function (point) {
      var key = curvePanel(point.round);
      if (!lines[key]) {
        lines[key] = [[curveX(point.round, 0), curveY(point.round, point.round === lastRound ? notesBefore : notesBefore)]];
      }
      lines[key].push([curveX(point.round, point.trick), curveY(point.round, point.notes)]);
      notesBefore = point.notes;
      lastRound = point.round;
    });
    if (!data.curve.length) {
      lines[0] = [[curveX(1, 0), curveY(1, 0)]];
    }
    Object.keys(lines).forEach(function (key) {
      svgElement("polyline", { points: lines[key].map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "), class: "notes-line" }, svg);
    });
    data.curve.forEach(function (point) {
      var x = curveX(point.round, point.trick);
      var label = "Round " + point.round + ", trick " + point.trick + ": " + point.notes + " note" + (point.notes === 1 ? "" : "s") + (point.special ? ", a special trick" : "");
      var link = svgElement("g", { class: "curve-point", tabindex: 0, role: "button", "aria-label": label, "data-id": point.id }, svg);
      var top = curveY(point.round, data.notes_per_sheet) - 8;
      svgElement("rect", { x: x - layout.slot / 2, y: top, width: layout.slot, height: bottom(point.round) + 22 - top, class: "hit" }, link);
      svgElement("circle", { cx: x, cy: curveY(point.round, point.notes), r: point.special ? 6.5 : 4.5, class: point.special ? "special" : "" }, link);
      svgText(String(point.trick), { x: x, y: bottom(point.round) + 16, "text-anchor": "middle", class: "axis small" }, link);
      svgElement("title", {}, link).textContent = label;
      link.addEventListener("click", function () {
        go(indexById[point.id]);
      });
      link.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          go(indexById[point.id]);
        }
      });
    });
  }

  function markCurve(position) {
    var now = byId("curve-now");
    if (now && position.round > 0) {
      var x = curveX(position.round, position.trick);
      now.setAttribute("x1", x);
      now.setAttribute("x2", x);
      now.setAttribute("y1", curveY(position.round, data.notes_per_sheet));
      now.setAttribute("y2", curveY(position.round, 0));
      now.removeAttribute("visibility");
    } else if (now) {
      now.setAttribute("visibility", "hidden");
    }
    Array.prototype.forEach.call(document.querySelectorAll(".curve-point"), function (point) {
      var here = point.getAttribute("data-id") === position.id;
      point.classList.toggle("current", here);
      if (here) {
        point.setAttribute("aria-current", "step");
      } else {
        point.removeAttribute("aria-current");
      }
    });
  }

  // -- the list of tricks ----------------------------------------------------------------

  // The row of a position: its round's row at a round's start, its trick's row during and
  // after the trick, the problem's row where an illegal record's replay stopped.
  function rowOf(position) {
    return position.step === "problem" ? "problem" : position.round + "." + position.trick;
  }

  // What the analysis says of a row's decisions: the worst label, or "best" when every
  // decision reviewed lost nothing; null when none was reviewed.
  function rowVerdict(id) {
    var reviews = [];
    positions.forEach(function (position) {
      if (rowOf(position) === id) {
        reviews = reviews.concat(position.reviews);
      }
    });
    if (!reviews.length) {
      return null;
    }
    var worst = -1;
    var lost = 0;
    reviews.forEach(function (review) {
      worst = Math.max(worst, LABELS.indexOf(review.label));
      lost += Math.max(review.cost, 0);
    });
    if (worst >= 0) {
      return { text: LABELS[worst] + " " + LABEL_WORDS[LABELS[worst]], best: false, lost: lost };
    }
    return lost > 0 ? { text: "good", best: false, lost: lost } : { text: "best", best: true, lost: 0 };
  }

  function rowSpan(row, className, text) {
    var span = element("span", className, text, row);
    span.title = text;
    return span;
  }

  function drawTrickList() {
    var list = byId("trick-list");
    clear(list);
    var rows = [];
    positions.forEach(function (position) {
      var id = rowOf(position);
      var isRow = position.step === "start" || position.step === "trick" || position.step === "problem";
      if (!isRow || rows.indexOf(id) >= 0) {
        return;
      }
      rows.push(id);
      var item = element("li", null, null, list);
      var row = element("button", "trick-row", null, item);
      row.type = "button";
      row.setAttribute("data-row", id);
      row.setAttribute("data-id", position.id);
      var verdict = data.analysis ? rowVerdict(id) : null;
      var words;
      if (position.step === "start") {
        row.classList.add("round-row");
        rowSpan(row, "row-number", "R" + position.round);
        words = "Round " + position.round + " begins: special number " + position.special_number;
        rowSpan(row, "row-what", "special number " + position.special_number);
      } else if (position.step === "problem") {
        row.classList.add("problem-row");
        rowSpan(row, "row-number", "✖");
        words = "Where the replay stops: the problem";
        rowSpan(row, "row-what", "the replay stops: the problem");
      } else {
        rowSpan(row, "row-number", position.round + "." + position.trick);
        var winner = ROLE_TITLE[position.winner];
        rowSpan(row, "row-what", winner + (position.special_trick ? " ★" : ""));
        var change = position.notes - position.notes_before;
        var notes = position.notes_before + "→" + position.notes;
        rowSpan(row, "row-notes" + (change ? " changed" : ""), notes);
        words = "Round " + position.round + ", trick " + position.trick + ": " + winner + " wins" + (position.special_trick ? " (a special trick)" : "") + ", notes " + position.notes_before + " to " + position.notes;
      }
      if (position.step !== "problem") {
        var label = rowSpan(row, "row-label" + (verdict && verdict.best ? " best" : ""), verdict ? verdict.text : "");
        if (verdict) {
          words += "; analysis: " + verdict.text;
          label.title = verdict.lost > 0 ? verdict.text + ": " + verdict.lost + " note" + (verdict.lost === 1 ? "" : "s") + " lost" : verdict.text;
        }
      }
      row.setAttribute("aria-label", words);
      row.addEventListener("click", function () {
        go(indexById[position.id]);
      });
    });
  }

  function markTrickList(position) {
    var list = byId("trick-list");
    var id = rowOf(position);
    var found = null;
    Array.prototype.forEach.call(list.querySelectorAll(".trick-row"), function (row) {
      var here = row.getAttribute("data-row") === id;
      if (here) {
        row.setAttribute("aria-current", "step");
        found = row;
      } else {
        row.removeAttribute("aria-current");
      }
    });
    if (found) {
      // Scroll the list itself (not the page) to bring the row into view.
      var item = found.parentNode;
      if (item.offsetTop < list.scrollTop) {
        list.scrollTop = item.offsetTop;
      } else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
      }
    }
  }

  // -- moving ----------------------------------------------------------------------------

  function describe(position) {
    var node = byId("position");
    node.setAttribute("data-round", String(position.round));
    node.setAttribute("data-trick", String(position.trick));
    node.setAttribute("data-step", position.step);
    node.setAttribute("data-notes", String(position.notes));
    node.setAttribute("data-super-trump", position.super_trump || "");
    node.setAttribute("data-phantom-hand", position.hands.phantom.join(" "));
    node.setAttribute("data-christine-hand", position.hands.christine.join(" "));
    node.setAttribute("data-view", view);
    node.textContent = position.text;
  }

  function draw() {
    var position = positions[current];
    describe(position);
    drawSheet(position);
    ROLES.forEach(function (role) {
      drawHand(role, position);
    });
    drawTrick(position);
    drawNotes(position);
    markCurve(position);
    var last = current === positions.length - 1;
    byId("counter").textContent = "Position " + (current + 1) + " of " + positions.length;
    byId("result").hidden = !last;
    [["first", current === 0], ["previous", current === 0], ["next", last], ["last", last]].forEach(function (pair) {
      byId(pair[0]).setAttribute("aria-disabled", pair[1] ? "true" : "false");
    });
    // Last, once every text above the list has its height: the list's own height is known.
    markTrickList(position);
  }

  function go(index) {
    if (typeof index !== "number" || index < 0 || index >= positions.length || index === current) {
      return;
    }
    current = index;
    draw();
    var address = "#" + positions[current].id;
    if (window.location.hash !== address) {
      try {
        window.history.replaceState(null, "", address);
      } catch (error) {
        // A page opened where its address cannot change (a sandboxed frame): keep going.
      }
    }
  }

  function fromAddress() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    return Object.prototype.hasOwnProperty.call(indexById, id) ? indexById[id] : null;
  }

  function setView(name) {
    view = name;
    Array.prototype.forEach.call(document.querySelectorAll("[data-view]"), function (button) {
      button.setAttribute("aria-pressed", button.getAttribute("data-view") === name ? "true" : "false");
    });
    draw();
  }

  // -- autoplay --------------------------------------------------------------------------

  var timer = null;

  function playing() {
    return timer !== null;
  }

  function setPlaying(on) {
    if (timer !== null) {
      window.clearTimeout(timer);
      timer = null;
    }
    var button = byId("autoplay");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.setAttribute("aria-label", on ? "Pause (P)" : "Play (P)");
    button.title = on ? "Pause (P)" : "Play the game position by position (P)";
    byId("autoplay-icon").setAttribute("href", on ? "#icon-pause" : "#icon-play");
    if (on) {
      if (current === positions.length - 1) {
        go(0);
      }
      schedule();
    }
  }

  function schedule() {
    timer = window.setTimeout(function () {
      timer = null;
      go(current + 1);
      if (current < positions.length - 1) {
        schedule();
      } else {
        setPlaying(false);
      }
    }, Number(byId("speed").value));
  }

  byId("first").addEventListener("click", function () {
    go(0);
  });
  byId("previous").addEventListener("click", function () {
    go(current - 1);
  });
  byId("next").addEventListener("click", function () {
    go(current + 1);
  });
  byId("last").addEventListener("click", function () {
    go(positions.length - 1);
  });
  byId("autoplay").addEventListener("click", function () {
    setPlaying(!playing());
  });
  byId("speed").addEventListener("change", function () {
    if (playing()) {
      setPlaying(true);
    }
  });
  Array.prototype.forEach.call(document.querySelectorAll("button[data-view]"), function (button) {
    button.addEventListener("click", function () {
      setView(button.getAttribute("data-view"));
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) {
      return;
    }
    if (event.key === "p" || event.key === "P") {
      event.preventDefault();
      setPlaying(!playing());
      return;
    }
    var moves = {
      ArrowLeft: current - 1,
      ArrowRight: current + 1,
      Home: 0,
      End: positions.length - 1,
    };
    if (Object.prototype.hasOwnProperty.call(moves, event.key)) {
      event.preventDefault();
      go(moves[event.key]);
    }
  });
  window.addEventListener("hashchange", function () {
    var index = fromAddress();
    if (index !== null) {
      go(index);
    }
  });
  // The sheet and the curve are drawn in pixels: drawn again when their width changes (a
  // new window size, or a scroll bar that came with the page's content).
  function refit() {
    if (current < 0) {
      return;
    }
    if (Math.abs(innerWidth(byId("sheet")) - sheetWidth) > 0.1) {
      drawSheet(positions[current]);
    }
    if (layout && Math.abs(innerWidth(byId("curve")) - layout.width) > 0.1) {
      drawCurve();
      markCurve(positions[current]);
    }
  }
  window.addEventListener("resize", refit);
  if (window.ResizeObserver) {
    var observer = new window.ResizeObserver(refit);
    observer.observe(byId("sheet"));
    observer.observe(byId("curve"));
  }

  ["viewer", "controls", "moves", "details", "curve-section"].forEach(function (id) {
    byId(id).hidden = false;
  });
  drawCurve();
  drawTrickList();
  var opening = fromAddress();
  go(opening === null ? indexById[data.start] : opening);
  refit();
  var box = byId("problem-box");
  if (!box.hidden && box.getBoundingClientRect().bottom > window.innerHeight) {
    box.scrollIntoView({ block: "center" });
  }
})();
