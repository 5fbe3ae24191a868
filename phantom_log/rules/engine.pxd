# C types for engine.py, read by Cython when it compiles the module ("pure Python mode":
# engine.py stays plain Python and runs as such where no compiler is available). Nothing
# here is a rule: only the types of the names that engine.py defines.

cimport cython

cdef int _NOTES
cdef int _TRICKS
cdef int _ROUNDS
cdef int _SWAP_SIZE
cdef int _SPECIAL_PENALTY
cdef int _BALANCE_PENALTY
cdef int _DEAL
cdef int _EXCHANGE
cdef int _SPECIAL_NUMBER
cdef int _PLAY
cdef int _SWAP
cdef int _OVER
cdef int _SUIT_MASK
cdef int _NO_CARD
cdef int _NOBODY
cdef int _HIGHER_NUMBER
cdef int _SUPER_TRUMP_REASON
cdef int _TRUMP_REASON
cdef int _LEAD_SUIT_REASON

cpdef int card_number_of(int card)
cpdef int suit_mask(int suit)

@cython.locals(lead_suit=int, follow_suit=int, lead_class=int, follow_class=int)
cpdef int judge(int lead, int follow, int super_trump)

cpdef int notes_after(int notes_before, bint in_order, bint special, bint balance)
cpdef int game_winner(int round_index, int notes, bint round_over) noexcept
cpdef int number_mask(int number) noexcept
cpdef int popcount(int mask)

@cython.locals(follow_suit_required=int)
cpdef int playable(int hand, int lead_suit)
cpdef int leader_code(int round_index)
cpdef int swap_size(int phantom_hand, int christine_hand)

@cython.locals(packed="long long")
cpdef long long pack_trick(int round_no, int trick_no, int leader, int lead, int follow,
                           int super_trump, int verdict, int note_owner, bint special,
                           int notes_before, int notes_after)


cdef class SwapOutcome:
    cdef readonly str after
    cdef readonly tuple phantom
    cdef readonly tuple christine


cdef class TrickOutcome:
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
    cdef readonly int phantom_after
    cdef readonly int christine_after
    cdef readonly int super_trump_after_code


cdef class GameState:
    cdef public int owners
    cdef public int suits
    cdef public bint beginner
    cdef public bint balance
    cdef public int phase_code
    cdef public int round_index
    cdef public int phantom_hand
    cdef public int christine_hand
    cdef public int notes
    cdef public int leader_code
    cdef public int turn_code
    cdef public int lead_card
    cdef public int follow_card
    cdef public int special_number
    cdef public int number_choices
    cdef public int tricks_played
    cdef public int pending_swap
    cdef public bint swap_after_follow
    cdef public bint special_in_trick
    cdef public int winner_code
    cdef public int ended_round
    cdef public int ended_trick
    cdef public int last_lead
    cdef public int last_follow
    cdef public int last_verdict
    cdef public bint tracking
    cdef public list swaps
    cdef public object last_trick

    cpdef GameState copy(self)
    cpdef void assign(self, GameState other)
    cpdef int super_trump_code(self)
    cpdef int note_owner_code(self, int note)
    cpdef int swap_due(self)
    cpdef int special_cards(self) noexcept
    @cython.locals(left=int, possible=int)
    cpdef int special_tricks_possible(self) noexcept
    @cython.locals(notes=int, _trick=int)
    cpdef int notes_floor(self) noexcept
    @cython.locals(notes=int, special=int, trick=int)
    cpdef int notes_ceiling(self) noexcept
    @cython.locals(hand=int)
    cpdef int legal_cards(self)
    cpdef object step_deal(self, int phantom, int christine)
    cpdef object step_exchange(self, int phantom_card, int christine_card)
    cpdef object step_special_number(self, int number)
    @cython.locals(leading=bint, hand=int, lead_suit=int, size=int)
    cpdef object step_play(self, int player, int card)
    cdef void _after_card(self, bint leading)
    @cython.locals(size=int, role=int, hand=int, card=int, position=int, mask=int, mask0=int,
                   mask1=int)
    cpdef object step_swap(self, object phantom, object christine)
    @cython.locals(size=int)
    cpdef object step_swap_masks(self, int phantom, int christine)
    cdef int _swap_card(self)
    @cython.locals(lead=int, follow=int, leader=int, notes=int, super_trump=int, verdict=int,
                   winner=int, note_owner=int, in_order=bint, special=bint, after=int,
                   outcome=TrickOutcome, decided=int)
    cdef void _finish_trick(self)
    cdef void _end(self, int winner)


@cython.locals(index=int, round_no=int, last_round=int, trick_index=int, trick_no=int,
               last_trick=int, is_last=bint, rounds=list, tricks=list)
cdef object _fold(dict record, GameState state, object out, bint trace)

@cython.locals(round_no=int, part_index=int, expected=int, card=int, position=int,
               seen=int, hand=int, deal=dict, codes=list)
cdef object _deal(GameState state, dict data, int index)

@cython.locals(round_no=int, phantom_card=int, christine_card=int)
cdef object _round_start(GameState state, dict data, object out, int index, bint trace)

@cython.locals(winner=int, round_no=int, trick_no=int, plays=list)
cdef object _trick(GameState state, dict trick, object out, int index, int trick_index,
                   bint is_last, bint trace)

@cython.locals(player=int, card=int, role=str, swap=dict, phantom=object, christine=object)
cdef object _play(GameState state, dict play, int index, int trick_index, int position,
                  list decisions)

cdef list _cards(list codes)

@cython.locals(rounds=list, tricks=int, claim=object, claimed_winner=object)
cdef object _finish(dict record, GameState state, Replay out)

cdef object _role(object key)

cpdef object record_sheet(object value, object sheets=*)

@cython.locals(text=str, first=int, second=int, number=int, suit=int)
cpdef int _card_of(object code) except -1

cdef bytes _SUIT_OF_LETTERS
cdef int _NUMBERS
cdef int _ONES


cdef class Replay:
    cdef public object sheet
    cdef public object rules
    cdef public list rounds
    cdef public list tricks
    cdef public list problems
    cdef public object result
    cdef public object ended_at
    cdef public object final
    cdef public list round_ends
    cdef public object decisions
