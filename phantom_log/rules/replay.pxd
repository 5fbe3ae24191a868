# C types for replay.py (Cython's "pure Python mode", as engine.pxd): the fold reads the
# record's dicts and lists, and steps the engine's state, in C; the builders' log is a C
# struct the fold fills in directly.

cimport cython
from phantom_log.rules.cards cimport parse_card
from phantom_log.rules.engine cimport GameState
from phantom_log.rules.events cimport Dealt, RoundEnded, RoundStarted, TrickEnded

cdef int _ROUNDS
cdef int _TRICKS
cdef int _NOTES
cdef int _HAND
cdef int _ASIDE
cdef int _DECK
cdef tuple _SINGLES
cdef tuple _PAIRS
cdef tuple _RESULTS
cdef int _DEAL
cdef int _EXCHANGE
cdef int _SPECIAL_NUMBER
cdef int _PLAY
cdef int _SWAP
cdef int _OVER


cdef class GameLog:
    cdef public object sheet
    cdef public object rules
    cdef public list events
    cdef public list deals
    cdef public list rounds
    cdef public list tricks
    cdef public list round_ends
    cdef public list problems
    cdef public object result
    cdef public object ended_at
    cdef public object final
    cdef public object decisions

    cpdef void add_events(self, list events) except *
    cdef void _add_kinds(self, list events) except *


cpdef object _dispatch(object visitor, object event)

@cython.locals(events=list)
cdef void _tell(object visitor, GameState state) except *

cdef void _problem(object visitor, GameState state, object problem) except *

@cython.locals(index=int, round_no=int, last_round=int, trick_index=int, trick_no=int,
               last_trick=int, is_last=bint, rounds=list, tricks=list, dealt=bint)
cdef object _fold(dict record, GameState state, object visitor, bint decisions,
                  object completion)

@cython.locals(round_no=int, phantom=int, christine=int, deal=dict)
cdef bint _deal(GameState state, dict data, int index, object completion) except -1

@cython.locals(round_no=int, card=int, position=int, seen=int, hand=int, codes=list)
cdef int _deal_part(dict deal, str key, int expected, int phantom, int christine,
                    int index) except -1

@cython.locals(round_no=int, phantom_card=int, christine_card=int)
cdef object _round_start(GameState state, dict data, object visitor, int index,
                         bint decisions, object completion)

@cython.locals(winner=int, round_no=int, trick_no=int, plays=list)
cdef object _trick(GameState state, dict trick, object visitor, int index,
                   int trick_index, bint is_last, bint decisions, object completion)

@cython.locals(player=int, card=int, swap=dict, round_no=int, trick_no=int)
cdef object _play(GameState state, dict play, object visitor, int index,
                  int trick_index, int position, bint decisions, object completion,
                  bint is_last)

@cython.locals(count=int, first=int)
cdef tuple _cards(object codes)

@cython.locals(mask=int)
cdef int _mask(object codes) except? -1

@cython.locals(rounds=list, tricks=int, claim=object, claimed_winner=object, winner_code=int)
cdef object _finish(dict record, GameState state, object visitor)
