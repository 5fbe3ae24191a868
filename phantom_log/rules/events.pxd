# C types for events.py (Cython's "pure Python mode", as engine.pxd): each event is a C
# struct with read-only fields, which the compiled engine fills in without a Python call.

cimport cython
from phantom_log.rules.cards cimport card_suit_index

cdef int _EXTRA
cdef int _REMOVED
cdef int _REMOVED_FLOORED


cdef class Dealt:
    cdef readonly int round
    cdef readonly int phantom_hand
    cdef readonly int christine_hand


cdef class Exchanged:
    cdef readonly int round
    cdef readonly int phantom_gave
    cdef readonly int christine_gave
    cdef readonly int phantom_hand
    cdef readonly int christine_hand


cdef class RoundStarted:
    cdef readonly int round
    cdef readonly int leader_code
    cdef readonly int special_number
    cdef readonly int chooser_code
    cdef readonly tuple choices
    cdef readonly int phantom_hand
    cdef readonly int christine_hand
    cdef readonly int notes
    cdef readonly int super_trump_code
    cdef readonly object exchange


cdef class CardPlayed:
    cdef readonly int round
    cdef readonly int trick
    cdef readonly int player_code
    cdef readonly int card
    cdef readonly bint leading
    cdef readonly bint special
    cdef readonly int swap_due
    cdef readonly int phantom_hand
    cdef readonly int christine_hand
    cdef readonly int next_code


cdef class CardsSwapped:
    cdef readonly int round
    cdef readonly int trick
    cdef readonly bint after_follow
    cdef readonly int card
    cdef readonly tuple phantom_gave
    cdef readonly tuple christine_gave
    cdef readonly int phantom_hand
    cdef readonly int christine_hand
    cdef readonly int next_code


cpdef int verdict_reason_code(int verdict) noexcept
cpdef bint leader_wins(int verdict) noexcept

@cython.locals(packed="long long")
cpdef long long pack_trick(int round_no, int trick_no, int leader, int winner, int lead,
                           int follow, int super_trump, int reason, int note_owner,
                           bint in_order, bint special, int notes_before, int notes_after)


@cython.locals(packed="long long", shift=int, swap=CardsSwapped)
cpdef long long pack_swaps(tuple swaps) except? -1

@cython.locals(value="long long", shift=int, card=int, phantom=tuple, christine=tuple)
cdef long long _pack_swap(CardsSwapped swap) except? -1


cdef class TrickEnded:
    cdef readonly int round
    cdef readonly int trick
    cdef readonly int leader_code
    cdef readonly int lead
    cdef readonly int follow
    cdef readonly int super_trump_code
    cdef readonly int verdict
    cdef readonly int note_owner_code
    cdef readonly bint special
    cdef readonly tuple swaps
    cdef readonly int notes_before
    cdef readonly int notes_after
    cdef readonly int change
    cdef readonly int penalty
    cdef readonly int phantom_hand
    cdef readonly int christine_hand
    cdef readonly int super_trump_after_code

    cdef int _winner(self) noexcept
    cdef bint _in_order(self) noexcept
    cpdef long long packed_facts(self) except? -1
    cpdef long long packed_swaps(self) except? -1


cdef class RoundEnded:
    cdef readonly int round
    cdef readonly int notes
    cdef readonly int tricks


cdef class GameEnded:
    cdef readonly int winner_code
    cdef readonly int notes
    cdef readonly int round
    cdef readonly int trick
