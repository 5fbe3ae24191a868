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
    suitIcon(suit, 22, item);
    element("span", "card-code", code, item);
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

  function drawSheet(position) {
    var svg = byId("sheet");
    clear(svg);
    var caption = byId("sheet-caption");
    if (!data.sheet) {
      svgText("No sheet: the record could not be replayed.", { x: 20, y: 100 }, svg);
      caption.textContent = "No sheet.";
      return;
    }
    var left = 92;
    var step = 45;
    var top = 34;
    var centre = 108;
    var note = 0;
    var x = left;
    data.sheet.bars.forEach(function (bar) {
      var width = step * bar.owners.length;
      var superTrump = bar.suit === position.super_trump;
      svgElement(
        "rect",
        { x: x, y: top, width: width, height: 134, class: "bar suit-" + bar.suit + (superTrump ? " super-trump" : "") },
        svg
      );
      suitIcon(bar.suit, 16, svg, { x: x + 5, y: top - 24 });
      // A bar of one or two notes has room for the suit's letters only.
      var name = bar.owners.length > 2 ? bar.suit + " " + bar.title : bar.suit;
      svgText(name, { x: x + 25, y: top - 11, class: "bar-label suit-" + bar.suit }, svg);
      if (superTrump) {
        svgText("super trump", { x: x + 6, y: top + 15, class: "super-trump-label" }, svg);
      }
      for (var i = 0; i < bar.owners.length; i += 1) {
        note += 1;
        var owner = bar.owners.charAt(i);
        var cx = left + step * (note - 1) + step / 2;
        var cy = owner === "C" ? centre - 34 : centre + 34;
        var completed = note <= position.notes;
        var next = note === position.next_note;
        var group = svgElement("g", { class: "note" + (completed ? " disc" : "") + (next ? " next" : "") }, svg);
        svgElement("circle", { cx: cx, cy: cy, r: 14 }, group);
        svgText(owner, { x: cx, y: cy + 5, class: "owner", "text-anchor": "middle" }, group);
        svgText(String(note), { x: cx, y: top + 160, class: "note-number", "text-anchor": "middle" }, svg);
      }
      x += width;
    });
    svgElement("line", { x1: left, x2: x, y1: centre, y2: centre, class: "centre-line" }, svg);
    svgText("Christine", { x: 6, y: centre - 29, class: "side-label" }, svg);
    svgText("Phantom", { x: 6, y: centre + 39, class: "side-label" }, svg);
    var words = position.notes + " of " + data.notes_per_sheet + " notes completed; ";
    words += position.super_trump ? "super trump " + SUIT_TITLES[position.super_trump] + "." : "no super trump.";
    caption.textContent = "The sheet: " + words + " Notes marked C are Christine's (above the line), P the Phantom's (on or below it); a filled disc marks a completed note.";
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
    if (!cards.length) {
      element("li", "empty", "no card", list);
    }
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
        element("span", "review-label", review.label, line);
        words = " " + words;
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

  var CURVE = { left: 40, right: 625, top: 16, bottom: 186 };

  function curveX(round, trick) {
    var slots = TRICKS_PER_ROUND * ROUNDS;
    return CURVE.left + ((CURVE.right - CURVE.left) * ((round - 1) * TRICKS_PER_ROUND + trick)) / slots;
  }

  function curveY(notes) {
    return CURVE.bottom - ((CURVE.bottom - CURVE.top) * notes) / data.notes_per_sheet;
  }

  function drawCurve() {
    var svg = byId("curve");
    clear(svg);
    var grid = [];
    for (var notes = 0; notes <= data.notes_per_sheet; notes += 3) {
      grid.push(notes);
    }
    grid.forEach(function (notes) {
      svgElement("line", { x1: CURVE.left, x2: CURVE.right, y1: curveY(notes), y2: curveY(notes), class: "grid" }, svg);
      svgText(String(notes), { x: CURVE.left - 8, y: curveY(notes) + 4, "text-anchor": "end", class: "axis" }, svg);
    });
    for (var round = 1; round <= ROUNDS; round += 1) {
      if (round > 1) {
        var boundary = curveX(round, 0);
        svgElement("line", { x1: boundary, x2: boundary, y1: CURVE.top, y2: CURVE.bottom, class: "round-boundary" }, svg);
      }
      svgText("round " + round, { x: curveX(round, TRICKS_PER_ROUND / 2), y: CURVE.bottom + 36, "text-anchor": "middle", class: "axis" }, svg);
    }
    svgElement("line", { id: "curve-now", x1: 0, x2: 0, y1: CURVE.top, y2: CURVE.bottom, class: "now" }, svg);
    var points = [[curveX(1, 0), curveY(0)]];
    data.curve.forEach(function (point) {
      points.push([curveX(point.round, point.trick), curveY(point.notes)]);
    });
    svgElement("polyline", { points: points.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "), class: "notes-line" }, svg);
    var half = (CURVE.right - CURVE.left) / (TRICKS_PER_ROUND * ROUNDS) / 2;
    data.curve.forEach(function (point) {
      var x = curveX(point.round, point.trick);
      var label = "Round " + point.round + ", trick " + point.trick + ": " + point.notes + " note" + (point.notes === 1 ? "" : "s") + (point.special ? ", a special trick" : "");
      var link = svgElement("g", { class: "curve-point", tabindex: 0, role: "button", "aria-label": label, "data-id": point.id }, svg);
      svgElement("rect", { x: x - half, y: CURVE.top - 8, width: half * 2, height: CURVE.bottom - CURVE.top + 30, class: "hit" }, link);
      svgElement("circle", { cx: x, cy: curveY(point.notes), r: point.special ? 6.5 : 4.5, class: point.special ? "special" : "" }, link);
      svgText(String(point.trick), { x: x, y: CURVE.bottom + 16, "text-anchor": "middle", class: "axis small" }, link);
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

  byId("viewer").hidden = false;
  drawCurve();
  var opening = fromAddress();
  go(opening === null ? indexById[data.start] : opening);
})();
