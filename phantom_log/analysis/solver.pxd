# C types for solver.py, read by Cython when it compiles the module (see engine.pxd): the
# solver's buffers are typed memoryviews, its states the engine's own C struct.

cimport cython
from phantom_log.rules.cards cimport popcount
from phantom_log.rules.engine cimport GameState, judge, playable

cdef int _NOTES
cdef int _TRICKS
cdef int _HAND
cdef int _SUIT_SIZE
cdef int _DEAL
cdef int _EXCHANGE
cdef int _SPECIAL_NUMBER
cdef int _PLAY
cdef int _SWAP
cdef int _OVER
cdef int _DECK
cdef int _SUITS
cdef int _SUIT_BITS
cdef int _SUIT_SPAN
cdef int _MAX_PLY
cdef int _WIDTH
cdef int _HALF
cdef int _GIVES
cdef int _BATCH
cdef long long _CHECK_EVERY
cdef int _NONE
cdef unsigned long long _MASK64
cdef unsigned long long _HASH0
cdef unsigned long long _HASH1
cdef int _NEAR_END
cdef int _GUESS_ABOVE
cdef int _HISTORY_BITS
cdef int _HISTORY_CAP
cdef int _WANTED
cdef int _TOP
cdef int _TABLE_FROM
cdef int _ETC_FROM
cdef int _WORD_BITS
cdef int _ROLE_BITS
cdef int _NUMBER_BITS
cdef int _CARD_BITS
cdef int _NOTE_BITS
cdef int _TRICK_BITS
cdef int _ROUND_BITS
cdef int _SWAP_BITS
cdef int _PHASE_BITS
cdef int _VALUE_BITS
cdef int _VALUE_MASK
cdef int _MOVE_AT
cdef int _MOVE_BITS
cdef int _MOVE_MASK
cdef int _LEFT_AT


cdef class Solver:
    cdef readonly int bits
    cdef readonly Py_ssize_t size
    cdef int near_bits
    cdef Py_ssize_t near
    cdef Py_ssize_t far
    cdef unsigned long long[::1] entries
    cdef const unsigned char[::1] extract
    cdef const unsigned char[::1] deposit
    cdef const int[::1] beats
    cdef list pool
    cdef int[::1] cards
    cdef int[::1] order
    cdef int[::1] scores
    cdef int[::1] gives
    cdef int[::1] answer_counts
    cdef int[::1] live
    cdef int[::1] history
    cdef int[::1] give_history
    cdef int[::1] give_scores
    cdef unsigned long long[::1] batch_keys
    cdef long long[::1] batch_slots
    cdef int[::1] batch_cards
    cdef int batch_hit
    cdef unsigned long long touched
    cdef list root_gives
    cdef int owners
    cdef int suits
    cdef bint beginner
    cdef bint balance
    cdef int side
    cdef double deadline
    cdef int found
    cdef unsigned long long key0
    cdef unsigned long long key1
    cdef public int cut_from
    cdef public long long nodes
    cdef public long long searched
    cdef public long long probes
    cdef public long long hits
    cdef public long long stores

    @cython.locals(lower=int, upper=int, found=int, beta=int)
    cpdef int _converge(self, GameState state, int ply, int index, int guess) except -1

    @cython.locals(phase=int, child=GameState, give=int)
    cpdef int _option(self, GameState root, int index, int alpha, int beta) except -1

    @cython.locals(phase=int, low=int, high=int, key0="unsigned long long",
                   key1="unsigned long long", slot=Py_ssize_t, best_move=int,
                   data="unsigned long long", left=int, tabled=bint,
                   window_low=int, window_high=int, found=int)
    cdef int _search(self, GameState state, int ply, int alpha, int beta) except -1

    @cython.locals(phase=int, lead=int, follow=int, live=int, phantom=int, christine=int,
                   marked=int, marked_all=int, number=int,
                   key="unsigned long long", suit=int, shift=int, within=int)
    cdef void _keys(self, GameState state, int ply) noexcept

    @cython.locals(live=int, compact=int, suit=int, shift=int)
    cdef int _compact(self, int ply, int mask) noexcept

    @cython.locals(live=int, mask=int, suit=int, shift=int)
    cdef int _expand(self, int ply, int compact) noexcept

    @cython.locals(slot=Py_ssize_t)
    cdef Py_ssize_t _probe(self, unsigned long long key0, unsigned long long key1,
                           int left) noexcept

    @cython.locals(mixed="unsigned long long")
    cdef Py_ssize_t _bucket(self, unsigned long long key0, unsigned long long key1,
                            int left) noexcept

    @cython.locals(slot=Py_ssize_t, other=Py_ssize_t, data="unsigned long long", mine=bint,
                   deeper=bint)
    cdef void _store(self, unsigned long long key0, unsigned long long key1, int low, int high,
                     int move, int left) noexcept

    @cython.locals(live=int, specials=int, kept=int, suit=int, shift=int, within=int,
                   plain=int, lowest=int)
    cdef int _representatives(self, GameState state, int legal) noexcept

    @cython.locals(player=int, maximise=bint, legal=int, base=int, count=int, card=int,
                   specials=int, queued=int,
                   child=GameState, best=int, best_card=int, position=int, index=int,
                   found=int, left=int)
    cdef int _play(self, GameState state, int ply, int alpha, int beta, int best_move) except -1

    @cython.locals(player=int, base=int, following=bint, count=int, card=int, score=int,
                   best_card=int, beats=int, want_win=bint, other_hand=int, number=int, won=bint,
                   answers=int, beaten=int, total=int, share=int)
    cdef int _order_plays(self, GameState state, int ply, int kept, int best_move)

    @cython.locals(phase=int, left=int, found=int)
    cdef int _queue_cut(self, GameState child, int ply, int position, int alpha, int beta,
                        bint maximise) noexcept

    @cython.locals(touched="unsigned long long", position=int, slot=Py_ssize_t,
                   key0="unsigned long long", key1="unsigned long long",
                   data="unsigned long long", found=int)
    cdef int _batch_cut(self, int count, int alpha, int beta, bint maximise) noexcept

    @cython.locals(position=int)
    cdef void _insert(self, int base, int count, int score) noexcept

    @cython.locals(maximise=bint, best=int, best_number=int, number=int, child=GameState,
                   found=int)
    cdef int _number(self, GameState state, int ply, int alpha, int beta, int best_move) except -1

    @cython.locals(size=int, first=int, second=int, base=int, count=int)
    cdef int _list_gives(self, GameState state, int ply)

    @cython.locals(count=int, card=int, other=int, history=int, score=int)
    cdef int _subsets(self, int hand, int size, int base, int role) noexcept

    @cython.locals(position=int)
    cdef void _insert_give(self, int base, int count, int give, int score) noexcept

    @cython.locals(card=int, index=int)
    cdef void _credit_give(self, int role, int give, int left) noexcept

    @cython.locals(count=int, answers=int, base=int, maximise=bint, index=int, best=int,
                   best_give=int, give=int, found=int)
    cdef int _simultaneous(self, GameState state, int ply, int alpha, int beta,
                           int best_move) except -1

    @cython.locals(child=GameState, base=int, maximise=bint, best=int, index=int,
                   answer=int, found=int)
    cdef int _answer(self, GameState state, int ply, int give, int answers, int alpha,
                      int beta) except -1

    @cython.locals(phantom=int, christine=int)
    cdef void _step_cell(self, GameState state, GameState child, int give, int answer)


cdef int _mover_of(GameState state) noexcept

@cython.locals(card=int)
cdef int _lowest(int mask) noexcept

