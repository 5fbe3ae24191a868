# C types for rows.py (Cython's "pure Python mode", as the engine's .pxd files): the game
# log and its events are C structs, read without a Python attribute lookup.

cimport cython
from phantom_log.rules.events cimport TrickEnded
from phantom_log.rules.replay cimport GameLog

cdef dict _NO_KEYS
cdef dict _UNKNOWN_RULES

@cython.locals(replayed=GameLog, outcome=TrickEnded, rounds_played=int, tricks_played=int,
               special=int, added=int, removed=int, record=dict)
cpdef tuple game_row(object report)

@cython.locals(replayed=GameLog, trick=TrickEnded, packed=list, swaps=list)
cpdef tuple trick_rows(object report)
