"""The replay page: one self-contained HTML file that steps through a game card by card.

Every position is read here, in Python, off the engine's events in the record's game log
(:mod:`phantom_log.rules.events`: each round's start, card, swap and trick, with the hands
after each), in one pass; the positions are embedded in the page as JSON.
The page's script (``page/replay.js``) only draws them: it knows no rule. The page fetches
nothing: a strict Content-Security-Policy allows only its own inline script and style, by
their SHA-256 hashes.

Record text (game id, names, comments) reaches the page only as escaped HTML text, as
JSON inside a ``<script type="application/json">`` with ``<``, ``>``, ``&`` and the line
separators escaped, or as text nodes made by the script.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import orjson

from ..checking.verdict import RecordReport
from ..rules.cards import CARD_CODES, Role, Suit, hand_codes, hand_mask, number_mask
from ..rules.engine import ROUNDS_PER_GAME, TRICKS_PER_ROUND, GameState, Phase, next_note_number
from ..rules.events import (
    CardPlayed,
    CardsSwapped,
    GameEnded,
    RoundEnded,
    RoundStarted,
    TrickEnded,
)
from ..rules.problems import Problem, Severity
from ..rules.replay import GameLog
from ..rules.sheets import NOTES_PER_SHEET
from .annotate import SwapRow, explained_tricks, swap_json
from .reports import players_text, printable, shared_title, verdict_text

#: The decisions an analysis can judge, as :class:`DecisionReview` keys name them.
DECISIONS: Final = ("exchange", "special-number", "lead", "follow", "swap")

# The characters that could end the JSON's <script> element or be read as markup, and the
# two line separators older JavaScript parsers took for line ends: written as \u escapes,
# which JSON.parse reads back as the same characters.
_JSON_IN_HTML: Final = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}
# Record text shown on the page: control characters and the other characters
# reports.printable escapes, except the line breaks and tabs a comment may hold.
_COMMENT_KEEP: Final = {ord("\n"): "\n", ord("\t"): "\t"}


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """An analysis's judgement of one decision: what it cost (notes lost against the best
    choice, from the deciding side's view), its label (``""``, ``"?!"``, ``"?"`` or
    ``"??"``) and the best choices (card codes, or numbers for the special number)."""

    cost: float
    label: str
    best: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The review as the page's data holds it."""
        return {"cost": self.cost, "label": self.label, "best": list(self.best)}


#: Reviews of a game's decisions, keyed ``(round, trick, decision, player, played)``:
#: ``played`` the choice made as one word (``Ma5``, ``Mi2+Ri4``, ``3``: a trick may hold
#: two swaps), ``decision``
#: one of :data:`DECISIONS`, ``trick`` 0 for the round's exchange and special number,
#: ``player`` a role key (``phantom`` or ``christine``).
ReviewKey = tuple[int, int, str, str, str]
Reviews = Mapping[ReviewKey, DecisionReview]
_LABELS: Final = ("", "?!", "?", "??")
BEST_SHOWN: Final = 12  # best choices a review lists


class AnalysisRowError(ValueError):
    """A row of an analysis file that is not one ``analyse --format json`` writes."""


def _best_text(choice: Any) -> str:
    if isinstance(choice, list) and all(isinstance(card, str) for card in choice):
        return "+".join(choice)
    if isinstance(choice, str | int) and not isinstance(choice, bool):
        return str(choice)
    raise AnalysisRowError("best: expected card codes or numbers")


def reviews_from_rows(
    rows: Iterable[Mapping[str, Any]], game_id: str | None
) -> dict[ReviewKey, DecisionReview]:
    """The reviews of one game (by ``game_id``) among rows as ``analyse --format json``
    writes them; ``AnalysisRowError`` for a row of another shape."""
    reviews = {}
    for row in rows:
        if row.get("game_id") != game_id:
            continue
        round_no, trick, kind = row.get("round"), row.get("trick"), row.get("kind")
        player, cost, label = row.get("player"), row.get("cost"), row.get("label")
        if (
            not isinstance(round_no, int)
            or not (trick is None or isinstance(trick, int))
            or kind not in DECISIONS
            or player not in ("phantom", "christine")
            or not (label is None or label in _LABELS)
            or not (cost is None or isinstance(cost, int | float))
            or not isinstance(row.get("best", []), list)
        ):
            raise AnalysisRowError(
                "expected round, trick, kind, player, cost, label and best as "
                "analyse --format json writes them"
            )
        key = (round_no, trick or 0, str(kind), str(player), _best_text(row.get("played")))
        if cost is None or isinstance(cost, bool):
            continue
        best = tuple(_best_text(choice)[:40] for choice in row.get("best", [])[:BEST_SHOWN])
        reviews[key] = DecisionReview(float(cost), label or "", best)
    return reviews


# -- text for the page -------------------------------------------------------------------


def page_text(text: str) -> str:
    """Record text as the page shows it: the characters that could forge a line
    (controls, bidirectional marks, separators, lone surrogates) written as escapes."""
    return printable(text)


def comment_text(text: str) -> str:
    """A trick's comment as the page shows it: :func:`page_text`, but keeping the line
    breaks and tabs a comment may hold."""
    return "\n".join(page_text(line) for line in text.split("\n")).replace("\\x09", "\t")


def embed_json(value: Any) -> str:
    """``value`` as JSON that can sit inside ``<script type="application/json">``: no
    ``<``, ``>`` or ``&`` (so no ``</script>`` nor comment opener), no U+2028/U+2029."""
    text = orjson.dumps(value).decode("utf-8")
    return text.translate(_JSON_IN_HTML)


def csp_hash(source: str) -> str:
    """The Content-Security-Policy source expression that allows one inline script or
    style: ``'sha256-…'`` of its UTF-8 text."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def _cards_text(cards: Iterable[int]) -> str:
    return " and ".join(CARD_CODES[card] for card in cards)


# -- the positions -------------------------------------------------------------------------


def _trick_comment(record: Mapping[str, Any], round_no: int, trick_no: int) -> str | None:
    """The recorder's comment on a trick, if the record holds one."""
    try:
        comment = record["rounds"][round_no - 1]["tricks"][trick_no - 1].get("comment")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return comment_text(comment) if isinstance(comment, str) else None


def _given(cards: Iterable[int]) -> str:
    """The cards a side gave in a swap as one word, as the reviews name them."""
    return "+".join(CARD_CODES[card] for card in sorted(cards))


class _Positions:
    """The positions of a game, read off its game log's events in one pass: each round's
    start, the position after each card and each swap, the position after each trick
    (the card or the swap that completed it makes no position of its own), and, for an
    illegal record, the state where the replay stopped."""

    def __init__(self, record: Mapping[str, Any], log: GameLog, reviews: Reviews) -> None:
        self.record = record
        self.log = log
        self.reviews = reviews
        self.positions: list[dict[str, Any]] = []
        self.received = [0, 0]
        self.special = 0
        self.special_number = 0
        self.notes = 0
        self.super_trump: Suit | None = None
        self.trick_cards: list[dict[str, Any]] = []
        self.trick_swaps: list[SwapRow] = []
        # The cards each side played this round, with their trick: the page greys them.
        self.played: dict[str, list[dict[str, Any]]] = {role.key: [] for role in Role}
        self.step = 0
        self.game_over = False

    def run(self) -> None:
        events = self.log.events
        explanations = dict(
            ((trick.round, trick.trick), text) for trick, text in explained_tricks(self.log)
        )
        completing: list[dict[str, Any]] = []
        for index, event in enumerate(events):
            following = events[index + 1] if index + 1 < len(events) else None
            ends_trick = isinstance(following, TrickEnded)
            if isinstance(event, RoundStarted):
                self.round_start(event)
            elif isinstance(event, CardPlayed):
                completing = self.card(event, ends_trick)
            elif isinstance(event, CardsSwapped):
                completing = self.swap(event, ends_trick)
            elif isinstance(event, TrickEnded):
                after = events[index + 1 : index + 3]
                self.trick(event, after, completing, explanations[(event.round, event.trick)])

    def round_start(self, start: RoundStarted) -> None:
        self.special_number = start.special_number
        self.special = number_mask(start.special_number)
        self.notes = start.notes
        self.super_trump = start.super_trump
        self.trick_cards = []
        self.trick_swaps = []
        self.played = {role.key: [] for role in Role}
        exchange = start.exchange
        if exchange is None:
            self.received = [0, 0]
            how = f"no exchange (beginner rule); the die shows {start.special_number}"
        else:
            self.received = [1 << exchange.phantom_received, 1 << exchange.christine_received]
            how = (
                f"the Phantom gave {CARD_CODES[exchange.phantom_gave]} and Christine gave "
                f"{CARD_CODES[exchange.christine_gave]} in the exchange; {start.leader.in_text} "
                f"picked {start.special_number} as the special number"
            )
        leader = start.leader
        text = f"Round {start.round} begins: {how}. {_sentence_start(leader.in_text)} leads."
        self.add(
            f"{start.round}.0",
            start.round,
            0,
            "start",
            text,
            start.hands,
            leader,
            self.round_reviews(start),
        )

    def card(self, played: CardPlayed, ends_trick: bool) -> list[dict[str, Any]]:
        """The position after a card (none when it completes the trick); returns the
        reviews of the decision."""
        if played.leading:
            self.trick_cards = []
            self.trick_swaps = []
            self.step = 0
        card = CARD_CODES[played.card]
        self.trick_cards.append(
            {"player": played.player.key, "card": card, "special": played.special}
        )
        self.played[played.player.key].append({"card": card, "trick": played.trick})
        decision = "lead" if played.leading else "follow"
        reviews = self.reviews_at(played.round, played.trick, decision, ((played.player, card),))
        if not ends_trick:
            verb = "leads" if played.leading else "plays"
            text = (
                f"Round {played.round}, trick {played.trick}: {played.player.in_text} {verb} {card}"
            )
            if played.swap_due:
                size = played.swap_due
                text += (
                    f", the special number {self.special_number}: a swap of {size} "
                    f"card{'s' if size != 1 else ''} each follows."
                )
            elif played.next_player is not None:
                text += f"; {played.next_player.in_text} to play."
            else:
                text += "."
            self.step += 1
            self.add(
                f"{played.round}.{played.trick}.{self.step}",
                played.round,
                played.trick,
                decision,
                _sentence_start(text),
                played.hands,
                played.next_player,
                reviews,
            )
        return reviews

    def swap(self, made: CardsSwapped, ends_trick: bool) -> list[dict[str, Any]]:
        """The position after a swap (none when it completes the trick); returns the
        reviews of the decision."""
        self.received[0] |= hand_mask(made.phantom_received)
        self.received[1] |= hand_mask(made.christine_received)
        self.trick_swaps.append(swap_json(made))
        given = (
            (Role.PHANTOM, _given(made.phantom_gave)),
            (Role.CHRISTINE, _given(made.christine_gave)),
        )
        reviews = self.reviews_at(made.round, made.trick, "swap", given)
        if not ends_trick:
            text = (
                f"Round {made.round}, trick {made.trick}: the swap after {CARD_CODES[made.card]}: "
                f"the Phantom gave {_cards_text(made.phantom_gave)}, Christine gave "
                f"{_cards_text(made.christine_gave)}"
            )
            following = made.next_player
            text += f"; {following.in_text} to play." if following is not None else "."
            self.step += 1
            self.add(
                f"{made.round}.{made.trick}.{self.step}",
                made.round,
                made.trick,
                "swap",
                text,
                made.hands,
                following,
                reviews,
            )
        return reviews

    def trick(
        self,
        outcome: TrickEnded,
        after: Sequence[Any],
        reviews: list[dict[str, Any]],
        explanation: str,
    ) -> None:
        """The position after a trick; ``after`` are the events that follow it (its
        round's end and the game's, when there)."""
        self.notes = outcome.notes_after
        self.super_trump = outcome.super_trump_after
        text = _trick_text(outcome)
        game_end = next((event for event in after if isinstance(event, GameEnded)), None)
        round_end = next((event for event in after if isinstance(event, RoundEnded)), None)
        to_move: Role | None = outcome.winner
        if game_end is not None:
            self.game_over = True
            to_move = None
            text += (
                f" The game is over: {game_end.winner.in_text} wins with {game_end.notes} "
                f"note{'s' if game_end.notes != 1 else ''} completed."
            )
        elif round_end is not None:
            to_move = None
            text += (
                f" Round {round_end.round} is over: {round_end.notes} "
                f"note{'s' if round_end.notes != 1 else ''} carried into round "
                f"{round_end.round + 1}."
            )
        self.add(
            f"{outcome.round}.{outcome.trick}",
            outcome.round,
            outcome.trick,
            "trick",
            text,
            outcome.hands,
            to_move,
            reviews,
            explanation=explanation,
            winner=outcome.winner.key,
            notes_before=outcome.notes_before,
            special_trick=outcome.special,
            comment=_trick_comment(self.record, outcome.round, outcome.trick),
        )

    # -- writing positions down ----------------------------------------------------------

    def reviews_at(
        self, round_no: int, trick_no: int, decision: str, made: Iterable[tuple[Role, str]]
    ) -> list[dict[str, Any]]:
        """The analysis's reviews of the choices ``made`` (each player's, as one word)."""
        found = []
        for player, played in made:
            review = self.reviews.get((round_no, trick_no, decision, player.key, played))
            if review is not None:
                found.append({"decision": decision, "player": player.key} | review.to_json())
        return found

    def round_reviews(self, start: RoundStarted) -> list[dict[str, Any]]:
        """The reviews of a round's exchange and special number."""
        found = []
        if start.exchange is not None:
            given = (
                (Role.PHANTOM, CARD_CODES[start.exchange.phantom_gave]),
                (Role.CHRISTINE, CARD_CODES[start.exchange.christine_gave]),
            )
            found += self.reviews_at(start.round, 0, "exchange", given)
        number = ((start.leader, str(start.special_number)),)
        return found + self.reviews_at(start.round, 0, "special-number", number)

    def add(
        self,
        key: str,
        round_no: int,
        trick_no: int,
        step: str,
        text: str,
        hands: tuple[int, int],
        to_move: Role | None,
        reviews: list[dict[str, Any]],
        **extra: Any,
    ) -> None:
        notes = self.notes
        next_note = None if self.game_over else next_note_number(notes)
        self.positions.append(
            {
                "id": key,
                "round": round_no,
                "trick": trick_no,
                "step": step,
                "text": text,
                "notes": notes,
                "super_trump": None if self.super_trump is None else self.super_trump.code,
                "special_number": self.special_number,
                "hands": {role.key: hand_codes(hands[role]) for role in Role},
                "special": {role.key: hand_codes(hands[role] & self.special) for role in Role},
                "received": {
                    role.key: hand_codes(hands[role] & self.received[role]) for role in Role
                },
                "trick_cards": list(self.trick_cards),
                "swaps": list(self.trick_swaps),
                "played": {key: list(cards) for key, cards in self.played.items()},
                "to_move": None if to_move is None else to_move.key,
                # The note the next trick is about: none once the game is decided.
                "next_note": next_note,
                "reviews": reviews,
                "explanation": None,
                "winner": None,
                "comment": None,
                "problem": None,
                "special_trick": False,
                **extra,
            }
        )

    def add_problem(self, final: GameState, problem: Problem | None, index: int | None) -> None:
        """The last position: the state where the replay stopped, and its problem."""
        phase = final.phase
        if phase == Phase.DEAL or phase == Phase.EXCHANGE or phase == Phase.SPECIAL_NUMBER:
            # Stopped at a round's deal, exchange or special number: nothing played yet.
            round_no, trick_no = final.round, 0
            self.trick_cards = []
            self.trick_swaps = []
            self.played = {role.key: [] for role in Role}
            self.received = [0, 0]
            self.special_number = 0
            self.special = 0
        elif final.lead is not None or phase == Phase.SWAP:
            round_no, trick_no = final.round, final.trick
        else:
            round_no, trick_no = final.round, final.tricks_played
        text = "The replay stops here"
        if problem is not None:
            text += f": {problem.code}: {page_text(problem.message)}"
        self.notes = final.notes
        self.super_trump = final.super_trump
        self.game_over = final.is_over
        self.add(
            "problem",
            round_no,
            trick_no,
            "problem",
            text + ".",
            final.hands,
            final.turn,
            [],
            problem=index,
        )


def _sentence_start(text: str) -> str:
    return text[:1].upper() + text[1:]


def _trick_text(outcome: TrickEnded) -> str:
    lead, follow = CARD_CODES[outcome.lead], CARD_CODES[outcome.follow]
    text = (
        f"Round {outcome.round}, trick {outcome.trick}: {outcome.leader.in_text} led {lead}, "
        f"{outcome.follower.in_text} played {follow}; {outcome.winner.in_text} wins the "
        f"trick, {'in' if outcome.in_order else 'out of'} order: notes "
        f"{outcome.notes_before} -> {outcome.notes_after}."
    )
    return _sentence_start(text)


def _empty_position(text: str, problem: int | None) -> dict[str, Any]:
    """The one position of a record that could not be replayed at all."""
    return {
        "id": "problem",
        "round": 0,
        "trick": 0,
        "step": "problem",
        "text": text,
        "notes": 0,
        "super_trump": None,
        "special_number": 0,
        "hands": {"phantom": [], "christine": []},
        "special": {"phantom": [], "christine": []},
        "received": {"phantom": [], "christine": []},
        "trick_cards": [],
        "swaps": [],
        "played": {"phantom": [], "christine": []},
        "to_move": None,
        "next_note": None,
        "reviews": [],
        "explanation": None,
        "winner": None,
        "comment": None,
        "problem": problem,
        "special_trick": False,
    }


# -- the page's data -----------------------------------------------------------------------


def _problem_json(problem: Problem, at: str | None) -> dict[str, Any]:
    return {
        "code": problem.code.value,
        "severity": problem.severity.value,
        "message": page_text(problem.message),
        "hint": None if problem.hint is None else page_text(problem.hint),
        "round": problem.round,
        "trick": problem.trick,
        "at": at,
    }


def _stopping_problem(report: RecordReport) -> int | None:
    """The index of the problem that stopped the replay (the first error with a place in
    the game, or the first error), or ``None``."""
    errors = [
        index for index, problem in enumerate(report.problems) if problem.severity is Severity.ERROR
    ]
    for index in errors:
        if report.problems[index].round is not None:
            return index
    return errors[0] if errors else None


def page_title(report: RecordReport) -> str:
    """The page's heading: the record's game id, or its place in its file (``record #N``)
    when it has none; never the file's path, which is this machine's, not the reader's."""
    if report.game_id:
        return page_text(report.game_id)
    return f"record #{report.index}"


def _record_text(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key)
    return page_text(value) if isinstance(value, str) else ""


def page_data(report: RecordReport, reviews: Reviews | None = None) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data: the record's heading, the sheet,
    every position, the notes curve, the result and the problems."""
    record = report.record if isinstance(report.record, dict) else {}
    replayed = report.log
    stopping = None if report.valid else _stopping_problem(report)
    if replayed is None:
        message = (
            "The record cannot be replayed"
            if stopping is None
            else f"The record cannot be replayed: {report.problems[stopping].code}: "
            f"{page_text(report.problems[stopping].message)}"
        )
        positions = [_empty_position(message + ".", stopping)]
        sheet = None
    else:
        walk = _Positions(record, replayed, reviews or {})
        walk.run()
        if replayed.result is None and replayed.final is not None:
            problem = None if stopping is None else report.problems[stopping]
            walk.add_problem(replayed.final, problem, stopping)
        positions = walk.positions
        if not positions:
            positions = [_empty_position("Nothing to replay.", stopping)]
        sheet = {
            "name": page_text(replayed.sheet.name),
            "bars": [
                {"suit": bar.suit.code, "title": bar.suit.title, "owners": bar.notation}
                for bar in replayed.sheet.bars
            ],
        }
    ids = {position["id"] for position in positions}
    problems = []
    for index, problem in enumerate(report.problems):
        at = None
        if index == stopping and "problem" in ids:
            at = "problem"
        elif problem.round is not None:
            key = f"{problem.round}.{problem.trick or 0}"
            at = key if key in ids else None
        problems.append(_problem_json(problem, at))
    curve = [
        {
            "id": position["id"],
            "round": position["round"],
            "trick": position["trick"],
            "notes": position["notes"],
            "special": position["special_trick"],
        }
        for position in positions
        if position["step"] == "trick"
    ]
    players_value = record.get("players")
    players: dict[str, Any] = players_value if isinstance(players_value, dict) else {}
    names = {
        role.key: page_text(str(players.get(role.key, "")))
        if isinstance(players.get(role.key), str)
        else ""
        for role in Role
    }
    return {
        "title": page_title(report),
        "heading": shared_title(report),
        "event": _record_text(record, "event"),
        "stage": _record_text(record, "stage"),
        "date": _record_text(record, "date"),
        "players": names,
        "players_text": players_text(names) if all(names.values()) else "",
        # None: the page carries no analysis; else how many decisions it reviews.
        "analysis": None if reviews is None else {"decisions": len(reviews)},
        "sheet": sheet,
        "rules": None
        if replayed is None
        else {"beginner": replayed.rules.beginner, "balance": replayed.rules.balance},
        "notes_per_sheet": NOTES_PER_SHEET,
        "tricks_per_round": TRICKS_PER_ROUND,
        "rounds": ROUNDS_PER_GAME,
        "positions": positions,
        "curve": curve,
        "result": _result_json(report),
        "problems": problems,
    }


def _result_json(report: RecordReport) -> dict[str, Any]:
    result = report.result
    replayed = report.log
    ended_at = None if replayed is None else replayed.ended_at
    if result is None:
        return {
            "winner": None,
            "notes": None,
            "valid": report.valid,
            "text": "Illegal record: the replay stops at its first illegal step.",
        }
    text = verdict_text("The game", result, ended_at).removeprefix("The game: valid: ")
    if not report.valid:
        text = f"Invalid record (see its problems); the replay gives: {text}"
    return {
        "winner": None if result.winner is None else result.winner.key,
        "notes": result.notes,
        "valid": report.valid,
        "text": _sentence_start(text) + ".",
    }


# -- the HTML ------------------------------------------------------------------------------


def _asset(name: str) -> str:
    return (resources.files("phantom_log.views") / "page" / name).read_text(encoding="utf-8")


def _csp(script: str | None, style: str) -> str:
    sources = [
        "default-src 'none'",
        f"style-src {csp_hash(style)}",
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    if script is not None:
        sources.insert(1, f"script-src {csp_hash(script)}")
    return "; ".join(sources)


def _head(title: str, csp: str, style: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        # The policy holds no double quote; its single quotes stay as they are.
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(csp, quote=False)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{style}</style>\n</head>\n"
    )


def _static_hands(position: Mapping[str, Any]) -> str:
    parts = []
    for role in Role:
        cards = position["hands"][role.key]
        parts.append(
            f"<li>{role.title}'s hand ({len(cards)}): "
            f"{html.escape(' '.join(cards)) if cards else 'empty'}</li>"
        )
    return "<ul>" + "".join(parts) + "</ul>"


def _position_attributes(position: Mapping[str, Any]) -> str:
    values = {
        "data-round": str(position["round"]),
        "data-trick": str(position["trick"]),
        "data-step": position["step"],
        "data-notes": str(position["notes"]),
        "data-super-trump": position["super_trump"] or "",
        "data-phantom-hand": " ".join(position["hands"]["phantom"]),
        "data-christine-hand": " ".join(position["hands"]["christine"]),
    }
    return " ".join(f'{name}="{html.escape(value)}"' for name, value in values.items())


def position_ids(data: Mapping[str, Any]) -> list[str]:
    """The ids of the positions of a page's data, in play order: ``ROUND.0`` at a round's
    start, ``ROUND.TRICK.STEP`` after a card or a swap inside a trick, ``ROUND.TRICK``
    once the trick is over, ``problem`` where the replay of an illegal record stopped."""
    return [position["id"] for position in data["positions"]]


class UnknownPosition(LookupError):
    """A position the replay of a record does not reach."""


def replay_page(
    report: RecordReport, start: str | None = None, reviews: Reviews | None = None
) -> str:
    """The replay page of one record, as one self-contained HTML document. ``start`` is
    the id of the position (:func:`position_ids`) it opens at when its address names none;
    by default the first. Raises :class:`UnknownPosition` for a ``start`` the replay does
    not reach."""
    return page_html(page_data(report, reviews), report, start)


def checked_replay_page(
    report: RecordReport, start: str | None = None, reviews: Reviews | None = None
) -> tuple[str, RecordReport]:
    """:func:`replay_page`, and the report it shows; should building the page fail (a bug
    of phantom-log), the page of the record's problems with an ``internal-error`` added,
    and that report, so that one record's failure is that record's problem."""
    try:
        return replay_page(report, start, reviews), report
    except UnknownPosition:
        raise
    except Exception as error:
        from dataclasses import replace

        from ..checking.verdict import internal_error

        failed = replace(report, problems=(*report.problems, internal_error(error)), log=None)
        return replay_page(failed), failed


#: How a page without an analysis says so, and how to get one.
NO_ANALYSIS: Final = (
    "No analysis on this page. To mark each decision's cost and label: phantom-log show "
    "GAME.json --html PAGE.html --analyse (about a minute a game), or --analysis FILE "
    "(from phantom-log analyse GAME.json --format json)."
)


def _analysis_notice(analysis: Mapping[str, Any] | None) -> tuple[str, str]:
    """The notice of what analysis the page carries, and its class."""
    if analysis is None:
        return NO_ANALYSIS, "no-analysis"
    count = analysis["decisions"]
    if not count:
        return (
            "The analysis given holds no decision of this game (none under its game id).",
            "no-analysis",
        )
    return (
        f"Analysed: {count} decision{'s' if count != 1 else ''} reviewed; ?! inaccuracy, "
        "? mistake, ?? blunder, best: no note lost against the best play.",
        "analysed",
    )


def opening_position(data: Mapping[str, Any]) -> str:
    """The position a page opens at when neither ``--at`` nor its address names one: an
    illegal record's problem (where its replay stopped, else the place of its first
    error), or the game's first position."""
    ids = position_ids(data)
    if "problem" in ids:
        return "problem"
    for problem in data["problems"]:
        if problem["severity"] == Severity.ERROR.value and problem["at"] in ids:
            return str(problem["at"])
    return ids[0]


def page_html(data: dict[str, Any], report: RecordReport, start: str | None = None) -> str:
    """The HTML of a page whose data :func:`page_data` made."""
    positions = data["positions"]
    ids = position_ids(data)
    if start is not None and start not in ids:
        raise UnknownPosition(start)
    data["start"] = opening_position(data) if start is None else start
    script = _asset("replay.js")
    style = _asset("replay.css")
    final = positions[-1]
    noscript_svg = ""
    if report.log is not None:
        from .picture import svg_picture

        noscript_svg = svg_picture(report.log, data["heading"])
    problems = "".join(
        f'<li class="problem {html.escape(problem["severity"])}">'
        f"{_problem_place(problem)}<strong>{html.escape(problem['code'])}</strong>: "
        f"{html.escape(problem['message'])}"
        + (
            f'<br><span class="hint">hint: {html.escape(problem["hint"])}</span>'
            if problem["hint"]
            else ""
        )
        + "</li>"
        for problem in data["problems"]
    )
    subtitle = [html.escape(part) for part in (data["event"],) if part]
    if data["stage"]:
        subtitle.append(f"stage {html.escape(data['stage'])}")
    if data["date"]:
        subtitle.append(html.escape(data["date"]))
    if data["players_text"]:
        subtitle.append(html.escape(data["players_text"]))
    if data["sheet"] is not None:
        subtitle.append(f"sheet {html.escape(data['sheet']['name'])}")
    rules = data["rules"] or {}
    named = [name for name in ("beginner", "balance") if rules.get(name)]
    if named:
        subtitle.append(" and ".join(named) + (" rules" if len(named) > 1 else " rule"))
    notice, notice_class = _analysis_notice(data["analysis"])
    fields = {
        "TITLE": html.escape(data["title"]),
        "SUBTITLE": " · ".join(subtitle),
        "POSITION_ATTRIBUTES": _position_attributes(final),
        "POSITION_TEXT": html.escape(final["text"]),
        "ANALYSIS_NOTICE": html.escape(notice),
        "ANALYSIS_CLASS": notice_class,
        "RESULT": html.escape(data["result"]["text"]),
        "RESULT_CLASS": "valid" if data["result"]["valid"] else "invalid",
        "PROBLEMS": problems or "<li>None.</li>",
        "NOSCRIPT_SVG": noscript_svg,
        "NOSCRIPT_HANDS": _static_hands(final),
        "DATA": embed_json(data),
        "SCRIPT": script,
    }
    # One pass over the template: a value is never searched for another field's name.
    body = _FIELD.sub(lambda found: fields[found.group(1)], _asset("replay.html"))
    return _head(data["heading"], _csp(script, style), style) + body


def _problem_place(problem: Mapping[str, Any]) -> str:
    where = ""
    if problem["round"] is not None:
        where = f"round {problem['round']}"
        if problem["trick"] is not None:
            where += f", trick {problem['trick']}"
    if not where:
        return ""
    if problem["at"] is not None:
        return f'<a href="#{html.escape(problem["at"])}">{where}</a>: '
    return f"{where}: "


# -- many records: one page each and an index ----------------------------------------------


_FIELD: Final = re.compile(r"\{\{([A-Z_]+)\}\}")
_SLUG_DROP: Final = re.compile(r"[^A-Za-z0-9_-]+")


def page_file_name(number: int, game_id: str | None) -> str:
    """The file name of record ``number``'s page (from 1) in a folder of pages: the
    number, then the game id reduced to letters, digits, ``-`` and ``_``."""
    ascii_id = unicodedata.normalize("NFKD", game_id or "").encode("ascii", "ignore").decode()
    slug = _SLUG_DROP.sub("-", ascii_id).strip("-")[:60].strip("-")
    return f"{number:04d}-{slug or 'record'}.html"


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One record's line in the index page: the game (its id, or its file's name and its
    place there), the players, event, stage and date the record gives, its result and its
    verdict."""

    file_name: str
    name: str
    verdict: str
    winner: str
    notes: str
    players: str = ""
    event: str = ""
    stage: str = ""
    date: str = ""

    @property
    def result(self) -> str:
        """The result in words: ``Christine wins, 9 notes``, ``unfinished, 5 notes``, or
        ``-`` for a record with none."""
        if self.winner == "-":
            return "-"
        notes = f"{self.notes} note{'s' if self.notes != '1' else ''}"
        who = self.winner if self.winner == "unfinished" else f"{self.winner} wins"
        return f"{who}, {notes}"


def index_entry(report: RecordReport, file_name: str) -> IndexEntry:
    """The index line of a record's page: its name, players, event, stage and date, its
    result and verdict."""
    result = report.result
    if report.failed:
        verdict = "not checked: " + ", ".join(
            sorted({p.code.value for p in report.problems if p.severity is Severity.ERROR})
        )
    elif report.valid:
        verdict = "valid" + (
            " (unfinished)" if result is not None and result.winner is None else ""
        )
    else:
        first = next(p for p in report.problems if p.severity is Severity.ERROR)
        verdict = f"invalid: {first.code.value}"
    if result is None:
        winner, notes = "-", "-"
    else:
        winner = "unfinished" if result.winner is None else result.winner.title
        notes = str(result.notes)
    record = report.record if isinstance(report.record, dict) else {}
    players_value = record.get("players")
    players = ""
    if isinstance(players_value, dict) and all(
        isinstance(players_value.get(role.key), str) for role in Role
    ):
        players = page_text(players_text(players_value))
    # The file's name, not its path: the index may be shared as its pages are.
    name = report.game_id or f"{_file_name(report.source)}#{report.index}"
    return IndexEntry(
        file_name,
        page_text(name),
        verdict,
        winner,
        notes,
        players,
        _record_text(record, "event"),
        _record_text(record, "stage"),
        _record_text(record, "date"),
    )


def _file_name(source: str) -> str:
    return source.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or source


#: The index's columns: its heading, and how an entry fills it.
_INDEX_COLUMNS: Final = (
    ("Game", "name"),
    ("Players", "players"),
    ("Event", "event"),
    ("Stage", "stage"),
    ("Date", "date"),
    ("Result", "result"),
    ("Verdict", "verdict"),
)


def index_page(title: str, entries: Sequence[IndexEntry]) -> str:
    """The index of a folder of replay pages: one row per record, linking to its page,
    its columns sorted by a click on their heading (a small inline script, allowed by
    its hash as the replay page's is)."""
    style = _asset("replay.css")
    script = _asset("index.js")
    rows = []
    for entry in entries:
        cells = [f'<td><a href="{html.escape(entry.file_name)}">{html.escape(entry.name)}</a></td>']
        for _, field in _INDEX_COLUMNS[1:]:
            cells.append(f"<td>{html.escape(str(getattr(entry, field)))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>\n")
    headings = "".join(
        f'<th scope="col" aria-sort="none"><button type="button" data-column="{number}">'
        f"{heading}</button></th>"
        for number, (heading, _) in enumerate(_INDEX_COLUMNS)
    )
    return (
        _head(page_text(title), _csp(script, style), style)
        + '<body class="index">\n<main>\n<h1>'
        + html.escape(page_text(title))
        + "</h1>\n"
        + '<p class="help">Select a column\'s heading to sort the games by it.</p>\n'
        + '<table id="records">\n<thead><tr>'
        + headings
        + "</tr></thead>\n<tbody>\n"
        + "".join(rows)
        + "</tbody>\n</table>\n</main>\n"
        + f"<script>{script}</script>\n</body>\n</html>\n"
    )
