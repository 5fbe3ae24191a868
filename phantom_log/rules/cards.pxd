# C types for cards.py, read by Cython when it compiles the module ("pure Python mode": the
# .py stays plain Python and runs as such where no compiler is available). The engine, the
# replay and the solver cimport these functions and call them as C functions.

cimport cython

cdef int _NUMBERS
cdef int _SUIT_BITS
cdef int _ONES
cdef bytes _SUIT_OF_LETTERS

cpdef int card_suit_index(int card) noexcept
cpdef int card_number(int card) noexcept
cpdef int suit_mask(int suit) noexcept
cpdef int number_mask(int number) noexcept
cpdef int popcount(int mask) noexcept

@cython.locals(text=str, first=int, second=int, number=int, suit=int)
cpdef int parse_card(object code) except -1
