"""The analysis in words: a coach's line per decision and a summary per player.

:mod:`phantom_log.analysis.decisions` computes; this module only words what it found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from ..records.trick_spans import WHOLE_GAME, TrickSpan
from ..rules.cards import Role, card_number, card_suit
from ..rules.sheets import NOTES_PER_SHEET
from ..views.replay_page import BEST_SHOWN, DecisionReview, ReviewKey
from ..views.terminal import Style
from .decisions import Decision, DecisionKind, PlayerSummary, choice_text, turning_points
from .solver import Choice

#: Best choices named in a line; the others are counted.
BEST_NAMED: Final = 4
#: Better choices named in a sentence; the others are counted.
_BETTER_NAMED: Final = 2

_WHERE: Final = {
    DecisionKind.EXCHANGE: "exchange",
    DecisionKind.SPECIAL_NUMBER: "special number",
    DecisionKind.SWAP: "swap",
}

_DOING: Final = {
    DecisionKind.LEAD: ("led", "leading"),
    DecisionKind.FOLLOW: ("followed with", "following with"),
    DecisionKind.SPECIAL_NUMBER: ("picked the special number", "picking"),
    DecisionKind.SWAP: ("gave", "giving"),
    DecisionKind.EXCHANGE: ("gave", "giving"),
}


def _amount(amount: float) -> str:
    """``3``, ``2.5``."""
    return f"{amount:g}" if amount == int(amount) else f"{amount:.1f}"


def notes_text(amount: float) -> str:
    """``1 note``, ``3 notes``, ``2.5 notes``."""
    return f"{_amount(amount)} note{'' if amount == 1 else 's'}"


def card_words(card: int) -> str:
    """A card as a player says it: ``the 4 of Masks``."""
    return f"the {card_number(card)} of {card_suit(card).title}s"


def _choice(row: Decision, choice: Choice, card_text: Callable[[int], str]) -> str:
    """A choice with each card as ``card_text`` writes it: cards joined by ``and``."""
    if isinstance(choice, tuple):
        return " and ".join(card_text(card) for card in choice)
    if row.kind is DecisionKind.SPECIAL_NUMBER:
        return str(choice)
    return card_text(choice)


def _choices(row: Decision, choices: Sequence[Choice], style: Style) -> str:
    named = [_choice(row, choice, style.card) for choice in choices[:BEST_NAMED]]
    more = len(choices) - BEST_NAMED
    if more > 0:
        return ", ".join(named) + f" or {more} other{'s' if more > 1 else ''}"
    return " or ".join(named) if len(named) < 3 else ", ".join(named[:-1]) + " or " + named[-1]


def _where(row: Decision, at_swap: bool = True) -> str:
    """``round 2, trick 4``, and the special number, the exchange or (``at_swap``) the swap
    where the decision was made."""
    where = f"round {row.round}"
    if row.trick is not None:
        where += f", trick {row.trick}"
    if row.kind in _WHERE and (at_swap or row.kind is not DecisionKind.SWAP):
        where += f", {_WHERE[row.kind]}"
    if at_swap and row.swap_after is not None:
        where += f" after the {row.swap_after}"
    return where


def decision_line(row: Decision, style: Style) -> str:
    """One decision as a coach says it: ``round 2, trick 4: the Phantom led Ch3 ?? - cost
    3 notes; best was Ma6``."""
    did = "picked" if row.kind is DecisionKind.SPECIAL_NUMBER else _DOING[row.kind][0]
    text = f"{_where(row)}: {row.player.in_text} {did} {_choice(row, row.played, style.card)}"
    if row.label is not None:
        text += " " + style.paint(row.label.value, "red", bold=True)
    if row.cost is None:
        text += " - not solved within the time limit"
    else:
        layouts = ""
        if row.worlds is not None:
            layouts = f" over {row.worlds} layout{'' if row.worlds == 1 else 's'}"
        on_average = " on average" if row.worlds is not None else ""
        if row.cost <= 0:
            text += f" - best{on_average}{layouts}"
        else:
            expected = "expected " if row.worlds is not None else ""
            text += f" - {expected}cost {notes_text(row.cost)}"
            if row.won_game_lost:
                text += " and the game"
            text += f"{layouts}; best{on_average} was {_choices(row, row.best, style)}"
    if row.answer is not None and row.worlds is None:
        answer = _choice(row, row.answer, style.card)
        text += f" (against {row.player.other.in_text}'s {answer})"
    if row.bounds is not None:
        low, high = row.bounds
        worth = notes_text(low) if low == high else f"{low} to {notes_text(high)}"
        text += f"; the {_WHERE[row.kind]} is worth {worth} as either side commits first"
    return text


def _round_end(best: float, played: float) -> str:
    """``7 notes completed, not 9``; the sheet completed (the game's end) said so."""
    if best == NOTES_PER_SHEET:
        return f"the sheet completed, not {notes_text(played)}"
    if played == NOTES_PER_SHEET:
        return f"{notes_text(best)} completed, not the sheet completed"
    return f"{notes_text(best)} completed, not {_amount(played)}"


def mistake_sentence(row: Decision, who: str) -> str:
    """A costly decision in plain words, ``who`` (``you``, ``the Phantom``) as its
    subject: ``round 2, trick 7: you led the 1 of Masks; leading the 6 of Rings or the 5
    of Masks, the round ends with 7 notes completed, not 9 (with best play after): 2
    notes``. The values are the solver's; the sentence restates no rule."""
    did, doing = _DOING[row.kind]
    text = f"{_where(row, at_swap=False)}: {who} {did} {_choice(row, row.played, card_words)}"
    if row.kind is DecisionKind.SWAP:
        text += f" at the swap after the {row.swap_after or 'card'}"
    elif row.kind is DecisionKind.EXCHANGE:
        text += " in the exchange"
    if row.cost is None or row.value_best is None or row.value_played is None:
        return text + " (not solved within the time limit)"
    # A swap's gives are pairs ("the 4 of Rings and the 6 of Masks"): one is named.
    shown = 1 if row.kind is DecisionKind.SWAP else _BETTER_NAMED
    named = " or ".join(_choice(row, choice, card_words) for choice in row.best[:shown])
    more = len(row.best) - shown
    if more > 0:
        named += f" (or {more} other{'' if more == 1 else 's'} as good)"
    average = f" on average over {row.worlds} layouts" if row.worlds is not None else ""
    text += (
        f"; {doing} {named}, the round ends with "
        f"{_round_end(row.value_best, row.value_played)}{average} (with best play after): "
        f"{notes_text(row.cost)}"
    )
    if row.won_game_lost:
        text += " and the game"
    return text


def _turning_point(row: Decision) -> str:
    """A turning point in a few words: where, who chose what, and what it cost."""
    did, _doing = _DOING[row.kind]
    chose = f"{_where(row)}: {row.player.in_text} {did} {_choice(row, row.played, card_words)}"
    if row.won_game_lost:
        return chose + f", which lost a won game ({notes_text(row.cost or 0)})"
    on_average = " on average" if row.worlds is not None else ""
    return chose + f", which cost {notes_text(row.cost or 0)}{on_average}"


def summary_lines(
    rows: Sequence[Decision],
    summaries: Sequence[PlayerSummary],
    players: Mapping[Role, str] | None = None,
    winner: Role | None = None,
    tricks: TrickSpan = WHOLE_GAME,
) -> list[str]:
    """What a learner reads after a game's decisions: which tricks the analysis covers,
    the turning points (:func:`~phantom_log.analysis.decisions.turning_points`), then per
    player how many decisions were the best play, the notes the others lost against it
    (with the count of each label and the decisions not solved in time), and a sentence
    for each of their costliest decisions."""
    lines = [f"Summary of {tricks}:" if not tricks.whole_game else "Summary:"]
    points = turning_points(rows)
    if points:
        judged = (
            "on average over what each player could not see"
            if any(row.worlds is not None for row in points)
            else "with both hands known"
        )
        lines.append(f"  Turning points (the choices that cost most, {judged}):")
        lines += [f"    {_turning_point(row)}" for row in points]
    else:
        lines.append("  Turning points: none, every decision solved was a best choice")
    for summary in summaries:
        who = summary.player.in_text
        name = "" if players is None else players.get(summary.player, "")
        if name and name.casefold() != summary.player.title.casefold():
            who += f" ({name})"  # "Christine (Christine)" says the name once
        who = who[0].upper() + who[1:]
        if winner is not None:
            who += ", who won" if winner is summary.player else ", who lost"
        solved = summary.decisions - summary.unsolved
        line = (
            f"  {who}: {summary.best_played} of {solved} decision{'' if solved == 1 else 's'} best"
        )
        others = solved - summary.best_played
        if others:
            counts = ", ".join(
                f"{count} {label.value}" for label, count in summary.labels.items() if count
            )
            line += (
                f"; {'the other one' if others == 1 else f'the other {others}'} lost "
                f"{notes_text(summary.notes_lost)} against best play ({counts})"
            )
        if summary.unsolved:
            line += f"; {summary.unsolved} not solved within the time limit"
        lines.append(line)
        lines += [f"    {mistake_sentence(row, 'you')}" for row in summary.worst]
    return lines


def stopped_line() -> str:
    """Said of an illegal record, before its problems."""
    return "analysed up to the record's first problem:"


def trick_reviews(reviews: Mapping[ReviewKey, DecisionReview]) -> dict[tuple[int, int], list[Any]]:
    """The reviewed decisions of each trick (round, trick), in play order, as JSON objects:
    ``player``, ``kind``, ``played``, ``cost``, ``label`` (the round's exchange and special
    number, trick 0, are not a trick's)."""
    tricks: dict[tuple[int, int], list[Any]] = {}
    for (round_no, trick, kind, player, played), review in reviews.items():
        if trick:
            entry = {
                "player": player,
                "kind": kind,
                "played": played,
                "cost": int(review.cost) if review.cost == int(review.cost) else review.cost,
                "label": review.label or None,
            }
            tricks.setdefault((round_no, trick), []).append(entry)
    return tricks


def trick_mistakes(entries: Sequence[Mapping[str, Any]]) -> str:
    """A trick's costly decisions in a few words: ``C lead Ma1 ? -2; P swap Ri4+Ma6 ?? -4``
    (``-`` for none)."""
    parts = [
        f"{entry['player'][0].upper()} {entry['kind']} {entry['played']} "
        f"{entry['label'] or ''} -{entry['cost']:g}".replace("  ", " ")
        for entry in entries
        if entry["cost"] > 0
    ]
    return "; ".join(parts) or "-"


def mistake_lines(
    marks: Mapping[tuple[int, int], Sequence[Mapping[str, Any]]], until: tuple[int, int] | None
) -> list[str]:
    """``show``'s mistakes under the sheet: a line per trick up to ``until`` (round, trick;
    ``None`` for none) with a costly decision, worded as :func:`trick_mistakes` words it."""
    if until is None:
        return ["Mistakes: none before play"]
    shown = f"round {until[0]}" if until[1] == 0 else f"round {until[0]}, trick {until[1]}"
    lines = [
        f"  round {round_no}, trick {trick}: {trick_mistakes(entries)}"
        for (round_no, trick), entries in sorted(marks.items())
        if (round_no, trick) <= until and any(entry["cost"] > 0 for entry in entries)
    ]
    if not lines:
        return [f"Mistakes up to {shown}: none"]
    return [f"Mistakes up to {shown} (P the Phantom, C Christine; cost in notes):", *lines]


def reviews_of(decisions: Iterable[Decision]) -> dict[ReviewKey, DecisionReview]:
    """The reviews of a game's analysed decisions (:func:`phantom_log.analysis.decisions.analyse`);
    a decision not solved in time has none."""
    reviews = {}
    for decision in decisions:
        if decision.cost is None:
            continue
        kind = decision.kind
        key = (
            decision.round,
            decision.trick or 0,
            kind.value,
            decision.player.key,
            choice_text(kind, decision.played),
        )
        reviews[key] = DecisionReview(
            decision.cost,
            "" if decision.label is None else decision.label.value,
            tuple(choice_text(kind, choice) for choice in decision.best[:BEST_SHOWN]),
        )
    return reviews
