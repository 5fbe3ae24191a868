"""Post-game analysis (``phantom_log.analysis.decisions``, ``phantom-log analyse``): the
walkthrough's decisions checked by hand, the layouts of ``--hidden``, time limits, ``--jobs``, the
CLI."""

from __future__ import annotations

import dataclasses
import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

import phantom_log
from phantom_log import engine_build
from phantom_log.analysis import decisions as analysis
from phantom_log.analysis.coach import decision_line
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
)
from phantom_log.analysis.solver import Solver
from phantom_log.rules.cards import CARD_BY_CODE, FULL_DECK, Role, hand_mask
from phantom_log.rules.engine import ExchangeCards, GameState, PlayCard, SwapCards
from phantom_log.views.terminal import Style
from tests.helpers.cli import run
from tests.helpers.paths import REPO

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
    assert any(line.startswith("the Phantom (Erik): ") for line in lines)
    assert any(line.startswith("Christine (Christine): ") for line in lines)
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
