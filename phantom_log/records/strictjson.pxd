# C types for strictjson.py, read by Cython when it compiles the module (see engine.pxd).

cimport cython

cdef double _DOUBTFUL_FLOAT

@cython.locals(count=Py_ssize_t, stack=list, mapping=dict, sequence=list)
cpdef Py_ssize_t scan(object value) except -2

@cython.locals(kind=object)
cdef bint _doubtful(object child, list stack) except -1

cdef Py_ssize_t _DOUBTFUL_DIGITS

@cython.locals(text="const unsigned char*", count=Py_ssize_t, length=Py_ssize_t,
               index=Py_ssize_t, after=Py_ssize_t, digits=Py_ssize_t, byte="unsigned char")
cpdef Py_ssize_t _text_keys(bytes data) except -2

@cython.locals(text="const unsigned char*", deepest=Py_ssize_t, depth=Py_ssize_t,
               length=Py_ssize_t, index=Py_ssize_t, byte="unsigned char")
cpdef Py_ssize_t _nesting(bytes data) except -1

cdef object _orjson_value(bytes data)

cdef object _checked(bytes data, object value, Py_ssize_t keys)

@cython.locals(text="const unsigned char[:]", spans=list, depth=Py_ssize_t, element=Py_ssize_t,
               index=Py_ssize_t, length=Py_ssize_t, start=Py_ssize_t, byte="unsigned char")
cpdef object split_array(bytes data)
