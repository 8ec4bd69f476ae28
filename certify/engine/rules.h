/* The rules, as every engine entry point takes them: certify.game.rules.Rules (a frozen
** dataclass), read here and nowhere else, so that a rule variant adds a field in two places:
** the dataclass and this struct. */
#ifndef CERTIFY_RULES_H
#define CERTIFY_RULES_H

#include <Python.h>

typedef struct {
    int ncells;            /* free cells, 0..8 */
    int fixed_columns;     /* columns keep fixed places (else positions are up to their order) */
    int foundation_moves;  /* a foundation's top card may come back onto a column (a variant) */
    int autoplay;          /* the closure: every move then safe moves home (else every move) */
} Rules;

/* One field of `o` as an int (a bool's truth, or an int's value), or -1 with the error set. */
static int rules_field(PyObject *o, const char *name, int truth, int *out) {
    PyObject *v = PyObject_GetAttrString(o, name);
    if (v == NULL) return -1;
    long n = truth ? PyObject_IsTrue(v) : PyLong_AsLong(v);
    Py_DECREF(v);
    if (n == -1 && PyErr_Occurred()) return -1;
    *out = (int)n;
    return 0;
}

/* A PyArg "O&" converter: a Rules (anything with its four fields) into *(Rules *)out, checked:
** 1, or 0 with the error set. */
static int rules_converter(PyObject *o, void *out) {
    Rules *r = out;
    if (rules_field(o, "ncells", 0, &r->ncells) || rules_field(o, "fixed_columns", 1,
                                                                &r->fixed_columns)
        || rules_field(o, "foundation_moves", 1, &r->foundation_moves)
        || rules_field(o, "autoplay", 1, &r->autoplay))
        return 0;
    if (r->ncells < 0 || r->ncells > 8) {
        PyErr_SetString(PyExc_ValueError, "ncells: 0 to 8 free cells");
        return 0;
    }
    if (r->autoplay && r->foundation_moves) {
        /* (a card taken back from a foundation could go where autoplay's cover cannot follow:
        ** docs/certificate-format.md, section 8) */
        PyErr_SetString(PyExc_ValueError, "autoplay is unsound with foundation moves");
        return 0;
    }
    return 1;
}

#endif
