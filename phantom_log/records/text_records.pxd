# C types for text_records.py, read by Cython when it compiles the module (see
# rules/engine.pxd): the parts of the game read as the extension types they are, so that
# the record is written from them without Python attribute lookups.

cimport cython
from phantom_log.records.game_text cimport PlacedCards, TextRound, TextSwap, TextTrick

cdef str _PHANTOM
cdef str _CHRISTINE

@cython.locals(data=dict, deal=dict, aside=PlacedCards, written=dict, trick=TextTrick,
               plays=list, written_trick=dict, tricks=list)
cpdef dict written_round(TextRound round_)

@cython.locals(given=dict)
cdef dict _play(str card, TextSwap swap)
