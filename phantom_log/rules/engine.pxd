# C types for engine.py, read by Cython when it compiles the module ("pure Python mode":
# engine.py stays plain Python and runs as such where no compiler is available). Nothing
# here is a rule: only the types of the names that engine.py defines.

cimport cython
from phantom_log.rules.cards cimport (
    card_number,
    card_suit_index,
    number_mask,
    popcount,
    suit_mask,
)
from phantom_log.rules.events cimport (
    CardPlayed,
    CardsSwapped,
    Dealt,
    Exchanged,
    GameEnded,
    RoundEnded,
    RoundStarted,
    TrickEnded,
    trick_winner,
)

cdef int _NOTES
cdef int _TRICKS
cdef int _ROUNDS
cdef int _HAND
cdef int _DECK
cdef int _FACES
cdef int _SWAP_SIZE
cdef int _SPECIAL_PENALTY
cdef int _BALANCE_PENALTY
cdef int _DEAL
cdef int _EXCHANGE
cdef int _SPECIAL_NUMBER
cdef int _PLAY
cdef int _SWAP
cdef int _OVER
cdef int _NO_CARD
cdef int _NOBODY
cdef int _MASK_SUIT
cdef int _SUPER_TRUMP_CLASS
cdef int _TRUMP_CLASS
cdef int _LEAD_SUIT_CLASS
cdef int _OTHER_CLASS
cdef int _HIGHER_NUMBER
cdef int _SUPER_TRUMP_REASON
cdef int _TRUMP_REASON
cdef int _LEAD_SUIT_REASON
cdef int _COMPLETED
cdef int _UNCHANGED
cdef int _EXTRA
cdef int _EXTRA_CAPPED
cdef int _REMOVED
cdef int _REMOVED_FLOORED
cdef tuple _NUMBER_TUPLES

cpdef int card_class(int card, int super_trump, int lead_suit) noexcept
cdef inline int _suit_class(int suit, int super_trump, int lead_suit) noexcept

@cython.locals(lead_suit=int, follow_suit=int, lead_class=int, follow_class=int,
               winning_class=int, leader_won=int)
cpdef int judge(int lead, int follow, int super_trump) noexcept

cpdef int special_penalty(bint balance) noexcept
cpdef int note_change(int notes_before, bint in_order, bint special, bint balance) noexcept

@cython.locals(change=int)
cpdef int notes_after(int notes_before, bint in_order, bint special, bint balance) noexcept

@cython.locals(follow_suit_required=int)
cpdef int playable(int hand, int lead_suit) noexcept
cpdef int round_leader(int round_index) noexcept
cpdef int swap_size(int phantom_hand, int christine_hand) noexcept
cpdef int swap_size_of(int phantom_cards, int christine_cards) noexcept
cpdef int game_winner(int round_index, int notes, bint round_over) noexcept
cpdef int super_trump_code(int suit_bits, int notes) noexcept
cpdef int next_note_owner_code(int owner_bits, int notes) noexcept


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
    cdef public bint unseen
    cdef public int phantom_count
    cdef public int christine_count
    cdef public int phantom_known
    cdef public int christine_known
    cdef public int phantom_dealt
    cdef public int christine_dealt
    cdef public tuple deals
    cdef public list events
    cdef public list swaps
    cdef public object exchange
    cdef public object last_trick

    cpdef GameState copy(self)
    cpdef void assign(self, GameState other)
    cpdef int super_trump_code(self) noexcept
    cpdef int note_owner_code(self, int note) noexcept
    cpdef int next_note_owner_code(self) noexcept
    cpdef int player_due(self) noexcept
    cpdef int swap_due(self) noexcept
    cpdef int swap_card(self) noexcept
    cpdef bint is_special(self, int card) noexcept
    cpdef int special_cards(self) noexcept
    @cython.locals(left=int, possible=int)
    cpdef int special_tricks_possible(self) noexcept
    @cython.locals(notes=int, _trick=int)
    cpdef int notes_floor(self) noexcept
    @cython.locals(notes=int, special=int, trick=int)
    cpdef int notes_ceiling(self) noexcept
    @cython.locals(hand=int, lead_suit=int, known=int)
    cpdef int legal_cards(self) noexcept
    cpdef object out_of_phase(self)
    cpdef object step(self, object action)
    cpdef object step_deal(self, int phantom, int christine)
    cpdef object step_deal_unseen(self)
    @cython.locals(dealt=Dealt)
    cdef void _begin_round(self, int phantom, int christine, bint unseen)
    @cython.locals(exchanged=Exchanged, role=int, card=int, hand=int)
    cpdef object step_exchange(self, int phantom_card, int christine_card)
    @cython.locals(started=RoundStarted)
    cpdef object step_special_number(self, int number)
    @cython.locals(leading=bint, hand=int, lead_suit=int, size=int, special=bint,
                   played=CardPlayed, held=int)
    cpdef object step_play(self, int player, int card)
    cdef void _after_card(self, bint leading)
    @cython.locals(bit=int)
    cdef void _played_unseen(self, int player, int card)
    cdef void _given(self, int phantom_gave, int christine_gave)
    @cython.locals(role=int, left=int, possible=int, count=int, phantom=int, christine=int,
                   hand=int)
    cpdef object inferred_deal(self, int phantom_left, int christine_left)
    cpdef void forget_hands(self)
    @cython.locals(size=int, role=int, count=int, hand=int, card=int, position=int, mask=int,
                   mask0=int, mask1=int, swapped=CardsSwapped)
    cpdef object step_swap(self, object phantom, object christine)
    cpdef object step_swap_masks(self, int phantom, int christine)
    @cython.locals(size=int)
    cpdef bint took_swap_masks(self, int phantom, int christine) except -1
    @cython.locals(lead=int, follow=int, leader=int, notes=int, trump=int, verdict=int,
                   winner=int, note_owner=int, in_order=bint, special=bint, after=int,
                   ended=TrickEnded, round_ended=RoundEnded, decided=int, round_over=bint,
                   events=list)
    cdef void _finish_trick(self)
    @cython.locals(ended=GameEnded)
    cdef void _end(self, int winner)
