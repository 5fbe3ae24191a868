"""Post-game analysis (``phantom_log.analysis.decisions``, ``phantom-log analyse``): the
walkthrough's decisions checked by hand, the layouts of ``--hidden``, time limits, ``--jobs``, the
CLI."""

from __future__ import annotations

import dataclasses
import json
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

import phantom_log
from phantom_log import engine_build
from phantom_log.analysis import decisions as analysis
from phantom_log.analysis.coach import decision_line, mistake_sentence
from phantom_log.analysis.decisions import (
    AnalysisOptions,
    Decision,
    DecisionKind,
    Label,
    analyse_replay,
    label_of,
    layouts,
    record_decisions,
    summarise,
    turning_points,
)
from phantom_log.analysis.solver import Solver
from phantom_log.records.trick_spans import trick_span
from phantom_log.rules.cards import CARD_BY_CODE, FULL_DECK, Role, hand_mask
from phantom_log.rules.engine import ExchangeCards, GameState, PlayCard, SwapCards
from phantom_log.views.terminal import Style
from tests.helpers.cli import run
from tests.helpers.paths import REPO
from tests.helpers.processes import read_terminal

WALKTHROUGH = REPO / "examples" / "rulebook-walkthrough.json"
REVOKE = REPO / "examples" / "invalid" / "revoke.json"
#: The pure-Python build is some ten times slower: it checks later decisions only.
PURE = engine_build() == "pure Python"


def record(path: Path = WALKTHROUGH) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def cards(codes: str) -> tuple[int, ...]:
    return tuple(CARD_BY_CODE[code] for code in codes.split())


def row_at(rows: list[Decision], trick: int, player: Role, kind: DecisionKind) -> Decision:
    (found,) = [
        row
        for row in rows
        if row.round == 2 and row.trick == trick and row.player is player and row.kind is kind
    ]
    return found


@pytest.fixture(scope="module")
def late_rows() -> list[Decision]:
    """The walkthrough's decisions from round 2, trick 4 on (well under a second)."""
    return phantom_log.analyse(record(), start=(2, 4))


def test_leading_a_mask_when_every_other_card_wins_costs_two_notes(
    late_rows: list[Decision],
) -> None:
    # Round 2, trick 7: seven notes, the special number 3 gone, Ring the super trump, note 8
    # the Phantom's. He holds Mi2 Ch4 Ch6 Ma2; Christine Ri6 Ma1 Ma5 Ma6. Leading Ri6, Ma6,
    # Ma5 then Ma1 she wins all four tricks (nothing of his beats a super trump or a
    # trump, and Ma2 must follow Ma6): the notes stay at 7. Leading Ma1, the Phantom's Ma2
    # wins note 8; every card of hers then beats his lead for note 9 (hers): 9.
    row = row_at(late_rows, 7, Role.CHRISTINE, DecisionKind.LEAD)
    assert row.played == CARD_BY_CODE["Ma1"]
    assert (row.value_played, row.value_best, row.cost) == (9, 7, 2)
    assert row.best == cards("Ri6 Ma5 Ma6")
    assert row.label is Label.MISTAKE


def test_any_lead_is_best_when_the_follower_wins_every_trick(late_rows: list[Decision]) -> None:
    # Round 2, trick 8: eight notes, note 9 is Christine's; she holds Ri6 Ma5 Ma6 and no
    # Mirror or Chandelier, so whatever the Phantom leads she wins it in order (9), then
    # keeps every trick after: 9 whichever card he leads.
    row = row_at(late_rows, 8, Role.PHANTOM, DecisionKind.LEAD)
    assert (row.value_played, row.value_best, row.cost, row.label) == (9, 9, 0, None)
    assert row.best == cards("Mi2 Ch4 Ch6")


def test_the_rulebooks_special_lead_reads_as_a_coach_says_it(late_rows: list[Decision]) -> None:
    # The rulebook's illustrated trick: the Phantom leads Chandelier 3 (special), a swap
    # follows and Christine's Ring 1 wins out of order.
    row = row_at(late_rows, 4, Role.PHANTOM, DecisionKind.LEAD)
    line = decision_line(row, Style())
    assert line == "round 2, trick 4: the Phantom led Ch3 ?? - cost 3 notes; best was Ma6"


def test_a_swap_is_judged_against_the_opponents_actual_give(late_rows: list[Decision]) -> None:
    phantom = row_at(late_rows, 4, Role.PHANTOM, DecisionKind.SWAP)
    christine = row_at(late_rows, 4, Role.CHRISTINE, DecisionKind.SWAP)
    assert phantom.answer == christine.played and christine.answer == phantom.played
    # Costs from each mover's side: the Phantom wants the notes high, Christine low.
    assert phantom.value_best is not None and phantom.value_played is not None
    assert christine.value_best is not None and christine.value_played is not None
    assert phantom.cost == phantom.value_best - phantom.value_played
    assert christine.cost == christine.value_played - christine.value_best


def test_labels_follow_the_cost() -> None:
    assert [label_of(cost) for cost in (0, 1, 2, 3, 7)] == [
        None,
        Label.INACCURACY,
        Label.MISTAKE,
        Label.BLUNDER,
        Label.BLUNDER,
    ]
    assert label_of(1, won_game_lost=True) is Label.BLUNDER


def test_forced_choices_are_left_out(late_rows: list[Decision]) -> None:
    # Trick 10: one card each. Every trick before it, from trick 4 on, has a choice.
    assert sorted({(row.round, row.trick) for row in late_rows}) == [(2, t) for t in range(4, 10)]


def test_summary_counts_notes_lost_and_labels(late_rows: list[Decision]) -> None:
    phantom, christine = summarise(late_rows)
    mine = [row for row in late_rows if row.player is Role.PHANTOM]
    assert phantom.decisions == len(mine)
    assert phantom.notes_lost == sum(row.cost or 0 for row in mine)
    assert sum(christine.labels.values()) == sum(
        row.label is not None for row in late_rows if row.player is Role.CHRISTINE
    )


# -- what the mover could see ----------------------------------------------------------------


def test_hidden_layouts_agree_with_all_the_mover_saw() -> None:
    replayed = record_decisions(record(), None)
    assert replayed.decisions is not None
    decisions = replayed.decisions
    checked = 0
    for index, (state, action) in enumerate(decisions):
        if state.round != 2 or not isinstance(action, PlayCard) or state.trick < 3:
            continue
        checked += 1
        mover = action.player
        opponent = mover.other
        worlds = layouts(decisions, index, mover)
        assert any(world.hands == state.hands for world in worlds)  # the truth is one
        seen = _seen_by(decisions, index, mover)
        for world in worlds:
            assert world.hand(mover) == state.hand(mover)
            assert bin(world.hand(opponent)).count("1") == bin(state.hand(opponent)).count("1")
            assert not world.hand(opponent) & seen["played"]
            assert world.hand(opponent) & seen["known"] == seen["known"]
            assert not world.hand(opponent) & seen["void"]
            assert world.hand(opponent) & ~FULL_DECK == 0
    assert checked == 16  # the plays of round 2 from trick 3 on


def _seen_by(decisions: list[Any], index: int, mover: Role) -> dict[str, int]:
    """What the mover saw of the round before decision ``index``, worked out from the
    record without the engine: cards played, cards they gave that the opponent still
    holds, and the cards of suits the opponent showed void in (since then given none)."""
    round_no = decisions[index][0].round
    played = known = void = 0
    for state, action in decisions[:index]:
        if state.round != round_no:
            continue
        if isinstance(action, PlayCard):
            played |= 1 << action.card
            known &= ~(1 << action.card)
            lead = state.lead
            if action.player is mover.other and lead is not None and action.card // 6 != lead // 6:
                suit = 0x3F << (6 * (lead // 6))
                void |= suit & ~known
        elif isinstance(action, SwapCards):
            given = hand_mask(list(action.phantom if mover is Role.PHANTOM else action.christine))
            received = hand_mask(
                list(action.christine if mover is Role.PHANTOM else action.phantom)
            )
            known = (known | given) & ~received
            void &= ~given
        elif isinstance(action, ExchangeCards):
            given = getattr(action, mover.key)
            received = getattr(action, mover.other.key)
            known = (known | 1 << given) & ~(1 << received)
    return {"played": played, "known": known, "void": void & ~known & ~played}


def test_hidden_analysis_is_seeded_and_samples_at_most_the_worlds_asked() -> None:
    data = record()
    first = phantom_log.analyse(data, start=(2, 7), hidden=True, worlds=3, seed=5)
    again = phantom_log.analyse(data, start=(2, 7), hidden=True, worlds=3, seed=5)
    assert first == again
    assert first and all(row.worlds is not None and 1 <= row.worlds <= 3 for row in first)
    assert all(row.won_game_lost is False for row in first)


def test_hidden_samples_are_nested_along_a_movers_decisions() -> None:
    """The layouts of one mover's decisions of a round are the first in one order of the
    round's deals: each decision's sample is the layouts still possible, up to the number
    asked, and a layout kept at a decision is kept at every later one where it is still
    possible (so the table serves it again)."""
    replayed = record_decisions(record(), None)
    assert replayed.decisions is not None
    decisions = replayed.decisions
    for mover in (Role.PHANTOM, Role.CHRISTINE):
        wanted = {
            index
            for index, (state, action) in enumerate(decisions)
            if state.round == 2 and isinstance(action, PlayCard) and action.player is mover
        }
        found = analysis._layouts(decisions, mover, wanted)
        seed = f"0/1/{mover.key}"
        chosen = {index: analysis._sample(found[index], 4, seed) for index in wanted}
        ordered = sorted(wanted)
        assert len(found[ordered[0]]) > 4  # a real draw, not every layout
        for index in ordered:
            assert len(chosen[index]) == min(4, len(found[index]))
            assert {deal for deal, _world in chosen[index]} <= {deal for deal, _ in found[index]}
        for earlier, later in pairwise(ordered):
            possible = {deal for deal, _world in found[later]}
            kept = {deal for deal, _world in chosen[earlier]} & possible
            assert kept <= {deal for deal, _world in chosen[later]}


# -- the fast path against every option solved exactly ----------------------------------------


def _exact_values(
    item: Any, values: dict[Any, float], worlds: int | None = None
) -> analysis._Values:
    """The slow path: from every option's exact value (or mean), the choice made's, the
    best and every best choice."""
    pick = max if item.player is Role.PHANTOM else min
    best_value = pick(values.values())
    best = [choice for choice, value in values.items() if abs(value - best_value) < 1e-9]
    return analysis._Values(values[item.played], best_value, analysis._sorted(best), worlds)


def _exact_perfect(solver: Solver, item: Any, deadline: float | None) -> analysis._Values:
    if item.answer is not None:
        row = solver.row_values(item.state, item.player, item.answer, deadline)
        return _exact_values(item, dict(row))
    return _exact_values(item, dict(solver.option_values(item.state, item.player, deadline)))


def _exact_hidden(
    solver: Solver, item: Any, worlds: list[GameState], deadline: float | None
) -> analysis._Values:
    totals: dict[Any, float] = {}
    for world in worlds:
        for choice, value in solver.option_values(world, item.player, deadline).items():
            totals[choice] = totals.get(choice, 0.0) + value
    means = {choice: total / len(worlds) for choice, total in totals.items()}
    return _exact_values(item, means, len(worlds))


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("rulebook-walkthrough.json", AnalysisOptions(start=(2, 2))),
        ("optional-rules.json", AnalysisOptions(start=(2, 2), deep=True)),
        ("custom-sheet.json", AnalysisOptions(start=(2, 4))),
        ("rulebook-walkthrough.json", AnalysisOptions(start=(2, 4), hidden=True, worlds=8)),
        ("optional-rules.json", AnalysisOptions(start=(2, 3), hidden=True, worlds=8, seed=3)),
        ("custom-sheet.json", AnalysisOptions(start=(2, 5), hidden=True, worlds=6, seed=1)),
    ],
)
def test_only_the_values_needed_give_what_every_option_solved_gives(
    name: str, options: AnalysisOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The analysis solves the choice made and the best exactly, and only bounds the
    others (:meth:`~phantom_log.analysis.solver.Solver.assess`); its rows are those of solving
    every option of every decision (and every layout) exactly."""
    replayed = record_decisions(record(REPO / "examples" / name), None)
    if PURE:
        options = dataclasses.replace(options, start=max(options.start, (2, 6)))
    fast = analyse_replay(replayed, None, options)
    monkeypatch.setattr(analysis, "_perfect", _exact_perfect)
    monkeypatch.setattr(analysis, "_hidden", _exact_hidden)
    slow = analyse_replay(replayed, None, options)
    assert len(fast) >= (2 if PURE else 5)
    assert fast == slow


# -- time limits and workers -----------------------------------------------------------------


def test_a_time_limit_never_gives_a_wrong_value() -> None:
    replayed = record_decisions(record(), None)
    exact = analyse_replay(replayed, None, AnalysisOptions(start=(2, 5)))
    assert len(exact) == 13 and all(row.solved for row in exact)
    for limit in (1e-6, 0.002, 0.01):
        limited = analyse_replay(replayed, None, AnalysisOptions(start=(2, 5), time_limit=limit))
        assert len(limited) == len(exact)
        for short, full in zip(limited, exact, strict=True):
            if short.solved:
                assert short == full
            else:
                assert (short.value_played, short.value_best, short.cost) == (None, None, None)
                assert short.label is None and short.best == ()


def test_the_time_limit_counts_cpu_seconds_not_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # A clock that runs 1,000 s ahead at every look (a machine so busy that each look
    # comes late) changes nothing; a process whose CPU time does so solves only what
    # takes fewer than the nodes between two looks.
    import itertools
    import time

    replayed = record_decisions(record(), None)
    exact = analyse_replay(replayed, None, AnalysisOptions(start=(2, 4)))
    limited = AnalysisOptions(start=(2, 4), time_limit=5.0)
    clock = itertools.count(0.0, 1000.0)
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    assert analyse_replay(replayed, None, limited) == exact
    monkeypatch.undo()
    cpu = itertools.count(0.0, 1000.0)
    monkeypatch.setattr(time, "process_time", lambda: next(cpu))
    late = analyse_replay(replayed, None, limited)
    monkeypatch.undo()
    assert len(late) == len(exact) and any(not row.solved for row in late)
    assert all(short == full for short, full in zip(late, exact, strict=True) if short.solved)


def test_two_jobs_give_what_one_gives(tmp_path: Path) -> None:
    paths = [str(WALKTHROUGH), str(REPO / "examples" / "optional-rules.json")]
    outputs = []
    for jobs in ("1", "2"):
        result = run("analyse", *paths, "--from", "2.5", "--format", "json", "--jobs", jobs)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0] == outputs[1]
    assert {json.loads(line)["game_id"] for line in outputs[0].splitlines()} == {
        "rulebook-walkthrough",
        "optional-rules",
    }


# -- the command line ------------------------------------------------------------------------


def test_table_reads_like_a_coach_and_ends_with_a_summary() -> None:
    result = run("analyse", str(WALKTHROUGH), "--from", "2.4", "--no-color")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "round 2, trick 4: the Phantom led Ch3 ?? - cost 3 notes; best was Ma6" in lines
    assert "Summary of trick 2.4 to the last trick:" in lines
    assert any(line.startswith("  The Phantom (Erik), who lost: ") for line in lines)
    # Christine is called Christine: her name is not said twice.
    assert any(line.startswith("  Christine, who won: ") for line in lines)
    assert lines[-3].endswith("valid: Christine wins with 9 notes completed (round 2, trick 10)")
    # The labels' legend closes the table.
    assert lines[-2:] == [
        "",
        "Legend: ?! an inaccuracy, 1 note lost; ? a mistake, 2 notes lost; ?? a blunder, "
        "3 notes or more, or a won game, lost",
    ]


def test_csv_has_a_row_per_decision(tmp_path: Path) -> None:
    out = tmp_path / "analysis.csv"
    result = run("analyse", str(WALKTHROUGH), "--from", "2.7", "--format", "csv", "-o", str(out))
    assert result.exit_code == 0
    header, *rows = out.read_text().splitlines()
    assert header.startswith("game_id,round,trick,player,kind,played,value_played,value_best")
    assert rows[0].startswith("rulebook-walkthrough,2,7,christine,lead,Ma1,9,7,Ri6 Ma5 Ma6,2,?,")
    again = run("analyse", str(WALKTHROUGH), "--from", "2.7", "--format", "csv", "-o", str(out))
    assert again.exit_code == 2 and "--force" in again.output
    forced = run("analyse", str(WALKTHROUGH), "--from", "2.8", "-o", str(out), "--force")
    assert forced.exit_code == 0 and out.read_text().startswith("examples/") is False


def test_usage_errors() -> None:
    assert run("analyse", str(WALKTHROUGH), "--worlds", "3").exit_code == 2
    assert run("analyse", str(WALKTHROUGH), "--from", "3.1").exit_code == 2
    assert run("analyse", str(WALKTHROUGH), "--time-limit", "0").exit_code == 2
    assert run("analyse", "no/such/file.json").exit_code == 2
    assert "Exit codes:" in run("analyse", "--help").output


def test_an_illegal_record_is_analysed_up_to_its_first_problem() -> None:
    # Christine revokes at round 2, trick 4: every decision before it is analysed.
    result = run("analyse", str(REVOKE), "--from", "2.4", "--no-color")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert "round 2, trick 4: the Phantom led Mi5 - best" in lines
    assert "analysed up to the record's first problem:" in lines
    assert any("revoke: Christine played Ch4" in line for line in lines)
    rows = phantom_log.analyse(record(REVOKE), start=(2, 4))
    assert (rows[-1].round, rows[-1].trick, rows[-1].player) == (2, 4, Role.PHANTOM)


def test_the_api_analyses_a_loaded_record() -> None:
    (loaded,) = phantom_log.load(WALKTHROUGH)
    rows = phantom_log.analyse(loaded, start=(2, 8))
    assert rows == phantom_log.analyse(record(), start=(2, 8))
    assert all(isinstance(row, phantom_log.Decision) for row in rows)
    assert rows[0].to_json()["played"] == "Ch6"
    assert isinstance(GameState, type)


def test_show_marks_each_tricks_mistakes_under_the_sheet(tmp_path: Path) -> None:
    analysis = tmp_path / "analysis.jsonl"
    made = run(
        "analyse", str(WALKTHROUGH), "--from", "2.7", "--format", "json", "-o", str(analysis)
    )
    assert made.exit_code == 0
    result = run("show", str(WALKTHROUGH), "--analysis", str(analysis), "--no-colour")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    start = lines.index(
        "Mistakes up to round 2, trick 10 (P the Phantom, C Christine; cost in notes):"
    )
    # Christine's lead of Ma1 at trick 7 cost her 2 notes (see the test above); the
    # decisions that cost nothing are not listed.
    mistakes = lines[start + 1 : -2]
    assert "  round 2, trick 7: C lead Ma1 ? -2" in mistakes
    # The mistakes, then the legend, which gives the labels too.
    assert all(line.startswith("  round 2, trick ") for line in mistakes)
    assert lines[-2] == "" and lines[-1].startswith("Legend: # a completed note; ")
    assert "; ? a mistake, 2 notes lost; " in lines[-1]
    before = run("show", str(WALKTHROUGH), "--at", "2.6", "--analysis", str(analysis))
    assert before.exit_code == 0
    assert "Mistakes up to round 2, trick 6: none" in before.output
    assert "Ma1 ?" not in before.output
    start_of_round = run("show", str(WALKTHROUGH), "--at", "2.0", "--analysis", str(analysis))
    assert "Mistakes up to round 2: none" in start_of_round.output
    analysed = run("show", str(WALKTHROUGH), "--analyse", "--time-limit", "5", "--no-colour")
    assert analysed.exit_code == 0
    assert "  round 2, trick 7: C lead Ma1 ? -2" in analysed.output.splitlines()


def test_show_refuses_to_mark_an_svg_or_two_sources_of_analysis(tmp_path: Path) -> None:
    analysis = tmp_path / "analysis.jsonl"
    analysis.write_text("")
    svg = str(tmp_path / "game.svg")
    marked_svg = run("show", str(WALKTHROUGH), "--svg", svg, "--analysis", str(analysis))
    assert marked_svg.exit_code == 2 and "not --svg" in marked_svg.output
    both = run("show", str(WALKTHROUGH), "--analyse", "--analysis", str(analysis))
    assert both.exit_code == 2 and "give one of them" in both.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[1]\n")
    unreadable = run("show", str(WALKTHROUGH), "--analysis", str(bad))
    assert unreadable.exit_code == 2 and "line 1 is not a JSON object" in unreadable.output


def test_annotate_adds_each_tricks_analysed_decisions(tmp_path: Path) -> None:
    analysis = tmp_path / "analysis.jsonl"
    made = run(
        "analyse", str(WALKTHROUGH), "--from", "2.7", "--format", "json", "-o", str(analysis)
    )
    assert made.exit_code == 0
    result = run("annotate", str(WALKTHROUGH), "--analysis", str(analysis), "--format", "json")
    assert result.exit_code == 0
    tricks = {(row["round"], row["trick"]): row for row in map(json.loads, result.output.split())}
    assert tricks[(2, 7)]["analysis"] == [
        {"player": "christine", "kind": "lead", "played": "Ma1", "cost": 2, "label": "?"}
    ]
    assert tricks[(2, 1)]["analysis"] == []
    table = run("annotate", str(WALKTHROUGH), "--analyse", "--time-limit", "5", "--no-explain")
    assert table.exit_code == 0
    assert "C lead Ma1 ? -2" in table.output
    legend = table.output.splitlines()[-1]
    assert legend.startswith("Legend: ") and "; ? a mistake, 2 notes lost; " in legend
    plain = run("annotate", str(WALKTHROUGH), "--no-explain").output.splitlines()[-1]
    assert plain.startswith("Legend: ") and "a mistake" not in plain
    both = run("annotate", str(WALKTHROUGH), "--analyse", "--analysis", str(analysis))
    assert both.exit_code == 2


# -- what a learner reads --------------------------------------------------------------------


def test_two_swaps_of_one_trick_are_named_by_the_card_they_followed(
    late_rows: list[Decision],
) -> None:
    # Round 2, trick 5 of the walkthrough: Christine's lead and the Phantom's follow both
    # show the special number, so a swap follows each (the engine's swap_after_follow).
    swaps = [row for row in late_rows if row.trick == 5 and row.kind is DecisionKind.SWAP]
    assert [(row.player, row.swap_after) for row in swaps] == [
        (Role.PHANTOM, "lead"),
        (Role.CHRISTINE, "lead"),
        (Role.PHANTOM, "follow"),
        (Role.CHRISTINE, "follow"),
    ]
    lines = [decision_line(row, Style()) for row in swaps]
    assert lines[0].startswith("round 2, trick 5, swap after the lead: the Phantom gave ")
    assert lines[3].startswith("round 2, trick 5, swap after the follow: Christine gave Mi2 ")
    assert [row.to_json()["swap_after"] for row in swaps] == ["lead", "lead", "follow", "follow"]
    assert all(row.swap_after is None for row in late_rows if row.kind is not DecisionKind.SWAP)
    header = run("analyse", WALKTHROUGH, "--at", "2.5", "--format", "csv").output.splitlines()[0]
    assert header.endswith(",won_game_lost,swap_after")


def test_turning_points_are_a_won_game_lost_then_the_costliest(
    late_rows: list[Decision],
) -> None:
    points = turning_points(late_rows)
    costly = sorted((row for row in late_rows if (row.cost or 0) > 0), key=lambda r: -(r.cost or 0))
    thrown = [row for row in late_rows if row.won_game_lost]
    assert thrown and len(points) == 3
    # Every choice that threw a won game away is one, the costliest others fill the rest,
    # and they are listed in play order.
    assert all(row in points for row in thrown)
    rest = [row for row in points if not row.won_game_lost]
    others = [row.cost for row in costly if not row.won_game_lost]
    assert sorted((row.cost for row in rest), reverse=True) == others[: len(rest)]
    assert [late_rows.index(row) for row in points] == sorted(late_rows.index(r) for r in points)
    assert turning_points([row for row in late_rows if not row.cost]) == []


def test_a_mistake_reads_in_plain_words(late_rows: list[Decision]) -> None:
    # The walkthrough's trick 7 (see above): Ma1 led, 9 notes; Ri6, Ma5 or Ma6 keep 7.
    row = row_at(late_rows, 7, Role.CHRISTINE, DecisionKind.LEAD)
    assert mistake_sentence(row, "you") == (
        "round 2, trick 7: you led the 1 of Masks; leading the 6 of Rings or the 5 of Masks "
        "(or 1 other as good), the round ends with 7 notes completed, not 9 (with best play "
        "after): 2 notes"
    )
    (thrown,) = [row for row in late_rows if row.won_game_lost]
    assert thrown.value_best == 12
    sentence = mistake_sentence(thrown, "you")
    assert ", the round ends with the sheet completed, not 11 notes " in sentence
    assert sentence.endswith(": 1 note and the game")
    assert f" at the swap after the {thrown.swap_after}; giving " in sentence


def test_the_summary_says_who_won_the_best_choices_and_the_costliest_mistakes() -> None:
    result = run("analyse", WALKTHROUGH, "--from", "2.4", "--no-color")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    rows = phantom_log.analyse(record(), start=(2, 4))
    start = lines.index("Summary of trick 2.4 to the last trick:")
    assert lines[start + 1] == (
        "  Turning points (the choices that cost most, with both hands known):"
    )
    points = lines[start + 2 : start + 5]
    assert all(line.startswith("    round 2, trick ") for line in points)
    assert any(line.endswith(", which lost a won game (1 note)") for line in points)
    for player, name, outcome in ((Role.PHANTOM, "The Phantom (Erik)", "lost"),):
        mine = [row for row in rows if row.player is player]
        best = sum((row.cost or 0) <= 0 for row in mine)
        lost = sum(row.cost or 0 for row in mine)
        (line,) = [line for line in lines if line.startswith(f"  {name}, who {outcome}: ")]
        assert line.startswith(
            f"  {name}, who {outcome}: {best} of {len(mine)} decisions best; the other "
            f"{len(mine) - best} lost {lost:g} notes against best play ("
        )
        worded = lines[lines.index(line) + 1 : lines.index(line) + 4]
        assert all(line.startswith("    round 2, trick ") and ": you " in line for line in worded)
    (christine,) = [line for line in lines if line.startswith("  Christine, ")]
    assert christine.startswith("  Christine, who won: ")
    assert "    round 2, trick 7: you led the 1 of Masks; leading the 6 of Rings" in "\n".join(
        lines
    )
    # No more "N notes lost over M decisions" for the winner.
    assert not any(" lost over " in line for line in lines)


def test_the_turning_points_of_hidden_are_said_to_be_averages() -> None:
    result = run("analyse", WALKTHROUGH, "--at", "2.7", "--hidden", "--worlds", "4")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert (
        "  Turning points (the choices that cost most, on average over what each player "
        "could not see):"
    ) in lines
    (point,) = [line for line in lines if line.startswith("    round 2, trick 7: Christine led ")]
    assert point.endswith(" notes on average")


def test_a_span_analyses_only_its_decisions() -> None:
    result = run("analyse", WALKTHROUGH, "--at", "2.7", "--format", "json")
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert rows and {(row["round"], row["trick"]) for row in rows} == {(2, 7)}
    spanned = run("analyse", WALKTHROUGH, "--from", "2.7", "--to", "2.8", "--format", "json")
    tricks = {(row["round"], row["trick"]) for row in map(json.loads, spanned.output.split())}
    assert tricks == {(2, 7), (2, 8)}
    table = run("analyse", WALKTHROUGH, "--at", "2.8", "--no-color").output.splitlines()
    assert "Summary of trick 2.8:" in table
    assert not any(line.startswith("round 2, trick 7") for line in table)
    later = run("analyse", WALKTHROUGH, "--from", "2.8", "--no-color").output.splitlines()
    assert "Summary of trick 2.8 to the last trick:" in later
    # Trick 10: one card each, no choice to analyse.
    last = run("analyse", WALKTHROUGH, "--at", "2.10", "--no-color")
    assert last.exit_code == 0
    assert "Summary of trick 2.10: no decision with a choice there" in last.output.splitlines()
    # Refused before any work: a span that names no trick.
    both = run("analyse", WALKTHROUGH, "--at", "2.7", "--from", "2.6")
    assert both.exit_code == 2 and "--at names the tricks alone" in both.output
    backwards = run("analyse", WALKTHROUGH, "--from", "2.7", "--to", "2.6")
    assert backwards.exit_code == 2 and "comes before" in backwards.output
    assert run("analyse", WALKTHROUGH, "--from", "2.0").exit_code == 2


def test_a_rounds_special_number_goes_with_its_first_trick() -> None:
    # With a time limit already past, little is solved, but which decisions the span
    # holds is seen all the same (each one is a row, solved or not).
    replayed = record_decisions(record(), None)

    def moments(span: str) -> set[tuple[int, int | None, str]]:
        start, end = span.split("-")
        tricks = trick_span(start or None, end or None, None)
        rows = analyse_replay(replayed, None, AnalysisOptions(time_limit=1e-9, tricks=tricks))
        return {(row.round, row.trick, row.kind.value) for row in rows}

    whole = moments("-")
    picks = {moment for moment in whole if moment[2] == "special-number"}
    assert picks == {(1, None, "special-number"), (2, None, "special-number")}
    assert moments("2-") == {moment for moment in whole if moment[0] == 2}
    assert (2, None, "special-number") in moments("2.1-2.1")
    assert not {moment for moment in moments("1.5-2.3") if moment[0] == 1 and moment[1] is None}
    assert (2, None, "special-number") in moments("1.5-2.3")
    assert moments("2.2-") == {m for m in whole if m[0] == 2 and m[1] is not None and m[1] >= 2}
    assert moments("-1.10") == {moment for moment in whole if moment[0] == 1}


# -- progress on a terminal ------------------------------------------------------------------


def _on_a_terminal(*args: str) -> tuple[int, bytes, bytes]:
    """``phantom-log ARGS`` with its standard error a terminal (a pseudo-terminal): the
    exit status, standard output, and what the terminal showed."""
    import os
    import pty
    import subprocess
    import sys
    import tempfile

    controller, terminal = pty.openpty()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "phantom_log", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=terminal,
        )
        os.close(terminal)
        seen = read_terminal(controller)
        status = process.wait(timeout=600)
        out.seek(0)
        return status, out.read(), seen


@pytest.mark.parametrize(("jobs", "limit"), [("1", "60"), ("2", "60"), ("1", "0.000001")])
def test_the_progress_line_counts_games_and_decisions_on_a_terminal(jobs: str, limit: str) -> None:
    paths = [str(WALKTHROUGH), str(REPO / "examples" / "optional-rules.json")]
    status, out, seen = _on_a_terminal(
        "analyse",
        *paths,
        "--from",
        "2.4",
        "--format",
        "json",
        "--jobs",
        jobs,
        "--time-limit",
        limit,
    )
    assert status == 0
    rows = [json.loads(line) for line in out.splitlines()]
    decisions = sum(row["value_played"] is not None for row in rows)
    # A decision not solved in time is not counted as solved.
    assert 0 < decisions <= len(rows) and (decisions < len(rows)) == (limit != "60")
    assert re.search(rb"\ranalysing: [\d,]+ records, [\d,]+ decisions? solved, \d+ s elapsed", seen)
    closing = seen.rstrip().rsplit(b"\r", 1)[-1]
    assert re.fullmatch(
        rb"analysing: 2 records, %d decisions solved, \d+ s elapsed" % decisions, closing.strip()
    ), seen[-300:]


def test_no_progress_line_off_a_terminal_nor_with_quiet() -> None:
    import subprocess
    import sys

    off = subprocess.run(
        [sys.executable, "-m", "phantom_log", "analyse", str(WALKTHROUGH), "--at", "2.8"],
        capture_output=True,
        check=False,
    )
    assert off.returncode == 0 and off.stderr == b""
    assert b"Summary of trick 2.8:" in off.stdout
    status, out, seen = _on_a_terminal("analyse", str(WALKTHROUGH), "--at", "2.8", "--quiet")
    assert status == 0 and b"Summary of trick 2.8:" in out
    assert b"analysing" not in seen
