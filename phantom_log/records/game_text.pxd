# C types for game_text.py, read by Cython when it compiles the module (see
# rules/engine.pxd): the parts of a game as extension types, and the reader's one pass over
# the characters of a line with C indices and characters.

cimport cython

cdef str _SUIT_FIRST
cdef str _SUIT_SECOND
cdef str _PHANTOM
cdef str _CHRISTINE
cdef int _NUMBERS
cdef tuple _CODES
cdef frozenset _HEADER_KEY_SET
cdef int _SWAP_SIZE
cdef Py_ssize_t _NUMBER_DIGITS


cdef class PlacedCards:
    cdef readonly tuple cards
    cdef readonly Py_ssize_t at
    cdef readonly tuple card_at


cdef class TextSwap:
    cdef readonly PlacedCards phantom
    cdef readonly PlacedCards christine
    cdef readonly Py_ssize_t at


cdef class TextPlay:
    cdef readonly str card
    cdef readonly int compact
    cdef readonly Py_ssize_t at
    cdef readonly TextSwap swap


cdef class TextTrick:
    cdef readonly Py_ssize_t at
    cdef readonly int count
    cdef readonly str card0
    cdef readonly int compact0
    cdef readonly Py_ssize_t at0
    cdef readonly TextSwap swap0
    cdef readonly str card1
    cdef readonly int compact1
    cdef readonly Py_ssize_t at1
    cdef readonly TextSwap swap1
    cdef public str comment
    cdef public Py_ssize_t comment_at
    cdef public str claim
    cdef public Py_ssize_t claim_at

    cpdef void add(self, int compact, Py_ssize_t at) except *
    cpdef TextSwap last_swap(self)
    cpdef void swap_last(self, TextSwap swap) except *


@cython.locals(trick=TextTrick)
cdef TextTrick _trick(Py_ssize_t at)
@cython.locals(placed=PlacedCards)
cdef PlacedCards _placed(tuple cards, Py_ssize_t at, tuple card_at)


cdef class TextRound:
    cdef readonly Py_ssize_t number
    cdef readonly Py_ssize_t at
    cdef readonly dict deal
    cdef public PlacedCards aside
    cdef public dict exchange
    cdef public Py_ssize_t exchange_at
    cdef public object special_number
    cdef public Py_ssize_t special_at
    cdef readonly list tricks
    cdef readonly dict left


cdef class TextGame:
    cdef readonly str source
    cdef readonly Py_ssize_t at
    cdef readonly dict header
    cdef readonly list rounds
    cdef readonly list problems
    cdef public Py_ssize_t first_line
    cdef public Py_ssize_t last_line
    cdef readonly Py_ssize_t first_start
    cdef public Py_ssize_t end

    cpdef str text(self)
    @cython.locals(start=Py_ssize_t, line_start=Py_ssize_t)
    cpdef object place(self, Py_ssize_t at)


cdef class _Reader:
    cdef str text
    cdef bint one_pass
    cdef readonly Py_ssize_t lines_word_by_word
    cdef Py_ssize_t length
    cdef Py_ssize_t start
    cdef Py_ssize_t end
    cdef Py_ssize_t next_start
    cdef Py_ssize_t line
    cdef TextGame game
    cdef TextRound current
    cdef TextGame pending

    @cython.locals(start=Py_ssize_t, end=Py_ssize_t, found=Py_ssize_t)
    cdef bint advance(self) except -1
    cdef TextGame new_game(self, Py_ssize_t at)
    cpdef object next_game(self)
    @cython.locals(end=Py_ssize_t, at=Py_ssize_t)
    cdef void read_line(self) except *
    @cython.locals(end=Py_ssize_t, index=Py_ssize_t, key_end=Py_ssize_t, char=Py_UCS4,
                   offset=Py_ssize_t, value_at=Py_ssize_t)
    cdef bint read_header_line(self, Py_ssize_t at) except -1
    @cython.locals(end=Py_ssize_t, found=Py_ssize_t)
    cdef Py_ssize_t value_end(self, Py_ssize_t index) except -1
    @cython.locals(char=Py_UCS4, stop=Py_ssize_t, current=TextRound, cards=PlacedCards,
                   number=Py_ssize_t, number_at=Py_ssize_t, after=Py_ssize_t)
    cdef bint read_usual_line(self, TextGame game, Py_ssize_t at) except -1
    @cython.locals(number=Py_ssize_t, round_=TextRound)
    cdef bint read_usual_round(self, TextGame game, Py_ssize_t at, Py_ssize_t stop) except -1
    @cython.locals(end=Py_ssize_t, begin=Py_ssize_t, number=Py_ssize_t)
    cdef tuple number_alone(self, Py_ssize_t index)
    @cython.locals(end=Py_ssize_t)
    cdef Py_ssize_t skip_spaces(self, Py_ssize_t index) except -1
    @cython.locals(end=Py_ssize_t)
    cdef tuple side_word(self, Py_ssize_t index)
    @cython.locals(end=Py_ssize_t, stop=Py_ssize_t, card=int, cards=list, places=list)
    cdef PlacedCards usual_cards(self, Py_ssize_t index, Py_ssize_t at)
    @cython.locals(end=Py_ssize_t, stop=Py_ssize_t, card=int, after=Py_ssize_t,
                   exchange=dict)
    cdef bint read_usual_exchange(self, TextRound current, Py_ssize_t at,
                                  Py_ssize_t index) except -1
    @cython.locals(end=Py_ssize_t, index=Py_ssize_t, number=Py_ssize_t, char=Py_UCS4,
                   stop=Py_ssize_t, card=int, trick=TextTrick, swap=TextSwap)
    cdef bint read_usual_trick(self, TextRound current, Py_ssize_t at) except -1
    @cython.locals(end=Py_ssize_t, index=Py_ssize_t, char=Py_UCS4, stop=Py_ssize_t,
                   card=int, given=list, places=list, named=list, side=Py_ssize_t,
                   swap=TextSwap)
    cdef tuple usual_swap(self, Py_ssize_t opening)
    cdef void read_words(self, TextGame game, Py_ssize_t at) except *
    @cython.locals(words=list, index=Py_ssize_t, end=Py_ssize_t, start=Py_ssize_t)
    cdef list line_words(self, Py_ssize_t at)
    @cython.locals(parts=list, index=Py_ssize_t, end=Py_ssize_t, char=Py_UCS4)
    cdef tuple comment(self, Py_ssize_t opening)


cdef bint _is_ascii_letter(Py_UCS4 char) noexcept
cdef bint _is_card_word(str text, Py_ssize_t index, Py_ssize_t stop) except -1
cdef bint _is_space(Py_UCS4 char) noexcept
@cython.locals(char=Py_UCS4)
cdef Py_ssize_t _word_end(str text, Py_ssize_t index, Py_ssize_t end) except -1
@cython.locals(number=int, first=int, second=int, suit=Py_ssize_t)
cdef int _card_at(str text, Py_ssize_t index, Py_ssize_t stop) except -2
cdef str _role_of_letter(Py_UCS4 char)
@cython.locals(folded=str)
cdef void _read_header_line(TextGame game, str key, str value, Py_ssize_t value_at,
                            Py_ssize_t at) except *
