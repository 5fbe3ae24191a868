# C types for rows.py (Cython's "pure Python mode", as the engine's .pxd files): the game
# log and its events are C structs, read without a Python attribute lookup, and a trick is
# packed field by field in C.

cimport cython
from phantom_log.rules.cards cimport card_suit_index
from phantom_log.rules.events cimport (
    CardsSwapped,
    TrickEnded,
    trick_in_order,
    trick_winner,
    verdict_reason_code,
)
from phantom_log.rules.replay cimport GameLog

cdef dict _NO_KEYS
cdef dict _UNKNOWN_RULES


cdef class BitLayout:
    cdef readonly tuple names
    cdef readonly tuple largest
    cdef readonly tuple widths
    cdef readonly tuple shifts
    cdef readonly int width
    cdef readonly int copies
    cdef readonly int count
    # INT_BITS + 1: a field is a bit wide at least, and the last is -1, no field's.
    cdef long long packed_largest[64]
    cdef int packed_widths[64]


@cython.final
cdef class Packing:
    cdef BitLayout layout
    cdef long long *largest
    cdef int *widths
    cdef long long value
    cdef int shift
    cdef int index

    cdef void start(self, BitLayout layout) noexcept
    @cython.locals(index=int)
    cdef inline int put(self, long long value) except -1
    cdef int refuse(self, long long value) except -1
    cdef object packed(self)


@cython.locals(leader=int)
cpdef object pack_trick(TrickEnded trick, Packing packing)

@cython.locals(swap=CardsSwapped, cards=int)
cpdef object pack_swaps(tuple swaps, Packing packing)

@cython.locals(place=int)
cdef int _put_cards(Packing packing, tuple given, int places) except -1

@cython.locals(replayed=GameLog, outcome=TrickEnded, rounds_played=int, tricks_played=int,
               special=int, added=int, removed=int, record=dict)
cpdef tuple game_row(object report)

@cython.locals(replayed=GameLog, trick=TrickEnded, packing=Packing, packed=list, swaps=list)
cpdef tuple trick_rows(object report)
