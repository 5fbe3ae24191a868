# C types for text_records.py, read by Cython when it compiles the module (see
# rules/engine.pxd): the parts of the game read, and the rules engine's state, as the
# extension types they are, so that following a game calls the engine without Python.

cimport cython
from phantom_log.records.game_text cimport (
    PlacedCards,
    TextGame,
    TextRound,
    TextSwap,
    TextTrick,
)
from phantom_log.rules.engine cimport GameState, round_leader

cdef tuple _ROLES
cdef str _PHANTOM
cdef str _CHRISTINE

@cython.locals(data=dict, deal=dict, aside=PlacedCards, written=dict, trick=TextTrick)
cdef dict _round(TextRound round_, bint turns)

@cython.locals(plays=list, written=dict)
cdef dict _trick(TextTrick trick, str first, str second)

@cython.locals(given=dict)
cdef dict _play(str player, str card, TextSwap swap)

@cython.locals(state=GameState, rounds=list, last=Py_ssize_t, index=Py_ssize_t,
               written=TextRound, round_=dict, leader=int, trick_index=Py_ssize_t,
               trick=TextTrick, first=int, second=int, tricks=list, order=int,
               player=int, deal=dict)
cdef void _give_turns(object record, TextGame game, object sheets, bint in_play) except *

@cython.locals(card=int, swap=TextSwap)
cdef GameState _played(GameState state, int player, TextTrick trick, int order, object record,
                       Py_ssize_t round_index, Py_ssize_t trick_index)

@cython.locals(size=int)
cdef GameState _swapped(GameState state, object swap, object record,
                        Py_ssize_t round_index, Py_ssize_t trick_index, Py_ssize_t order)

@cython.locals(data=dict, header=dict, players=dict)
cdef void _header(TextGame game, object record) except *

cdef object _result(TextGame game, object record)

@cython.locals(rules=dict)
cdef GameState _started(dict data, object sheets)

@cython.locals(exchange=dict, exchanging=bint, dealt=GameState, taken=bint)
cdef GameState _opened(GameState state, dict round_, object record, Py_ssize_t index)
