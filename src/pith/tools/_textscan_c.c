/*
 * pith.tools._textscan_c: the newlines and the UTF-8 size of a str, in one pass.
 *
 * An optional speed-up of pith.tools._textscan.scan_python, which gives the same figures;
 * hatch_build.py compiles it at install when a C compiler is there. The loops read the str's
 * own storage (one, two or four bytes a character) and count into counters as wide as the
 * characters, over blocks short enough that they cannot overflow, so compilers turn them into
 * vector code. A lone surrogate counts three bytes, as the surrogatepass encoding does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static void
scan_1byte(const uint8_t *text, Py_ssize_t length, size_t *newlines, size_t *extra)
{
    size_t lines = 0, more = 0;
    while (length > 0) {
        Py_ssize_t block = length < 255 ? length : 255;
        uint8_t block_lines = 0, block_more = 0;
        for (Py_ssize_t i = 0; i < block; i++) {
            block_lines += text[i] == '\n';
            block_more += text[i] >> 7;
        }
        lines += block_lines;
        more += block_more;
        text += block;
        length -= block;
    }
    *newlines = lines;
    *extra = more;
}

static void
scan_2byte(const uint16_t *text, Py_ssize_t length, size_t *newlines, size_t *extra)
{
    size_t lines = 0, more = 0;
    while (length > 0) {
        Py_ssize_t block = length < 32767 ? length : 32767;
        uint16_t block_lines = 0, block_more = 0;
        for (Py_ssize_t i = 0; i < block; i++) {
            uint16_t c = text[i];
            block_lines += c == '\n';
            block_more += (c >= 0x80) + (c >= 0x800);
        }
        lines += block_lines;
        more += block_more;
        text += block;
        length -= block;
    }
    *newlines = lines;
    *extra = more;
}

static void
scan_4byte(const uint32_t *text, Py_ssize_t length, size_t *newlines, size_t *extra)
{
    size_t lines = 0, more = 0;
    while (length > 0) {
        Py_ssize_t block = length < (1 << 28) ? length : (1 << 28);
        uint32_t block_lines = 0, two = 0, three = 0, four = 0;
        for (Py_ssize_t i = 0; i < block; i++) {
            uint32_t c = text[i];
            block_lines += c == '\n';
            two += c >= 0x80;
            three += c >= 0x800;
            four += c >= 0x10000;
        }
        lines += block_lines;
        more += (size_t)two + three + four;
        text += block;
        length -= block;
    }
    *newlines = lines;
    *extra = more;
}

static PyObject *
scan(PyObject *module, PyObject *text)
{
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "scan() takes a str");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) { /* a no-op from 3.12 on, and deprecated there */
        return NULL;
    }
#endif
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    size_t newlines = 0, extra = 0;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        scan_1byte(PyUnicode_1BYTE_DATA(text), length, &newlines, &extra);
        break;
    case PyUnicode_2BYTE_KIND:
        scan_2byte(PyUnicode_2BYTE_DATA(text), length, &newlines, &extra);
        break;
    default:
        scan_4byte(PyUnicode_4BYTE_DATA(text), length, &newlines, &extra);
        break;
    }
    return Py_BuildValue("(nn)", (Py_ssize_t)newlines, length + (Py_ssize_t)extra);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O, "(newlines, utf8_bytes) of a str."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef definition = {
    PyModuleDef_HEAD_INIT, "_textscan_c", "Newlines and UTF-8 size of a str.", -1, methods,
};

PyMODINIT_FUNC
PyInit__textscan_c(void)
{
    return PyModule_Create(&definition);
}
