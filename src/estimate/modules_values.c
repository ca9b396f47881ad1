/* estimate/modules_values: Python's operations on the values the evaluator
 * holds, with no reading of code: truth, arithmetic (floor division and
 * powers as Python has them, list and tuple concatenation), a value as a
 * module, and a module's totals added up. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "modules.h"

bool oom_mod_truth(const value *v, int *out)
{
    switch (v->kind) {
    case V_BOOL:
    case V_INT:
        *out = v->i != 0;
        return true;
    case V_NONE:
        *out = 0;
        return true;
    case V_STR:
        *out = v->s[0] != '\0';
        return true;
    case V_FLOAT:
        *out = v->f != 0;
        return true;
    case V_SEQ:
        *out = v->i != 0;
        return true;
    case V_MODULE:
    case V_OBJECT:
    case V_CLASS:
    case V_FUNC:
    case V_TENSOR:
        *out = 1;
        return true;
    default:
        return false;
    }
}

void oom_mod_add(mod *a, const mod *b)
{
    a->params += b->params;
    a->buffers += b->buffers;
    a->untrained += b->untrained;
    a->dense += b->dense;
    a->seq += b->seq;
    a->spatial += b->spatial;
    a->tokens = a->tokens || b->tokens;
    a->act_unknown = a->act_unknown || b->act_unknown;
}

long long oom_mod_product(const long long *dims, int n)
{
    long long p = 1;
    for (int i = 0; i < n; i++)
        p *= dims[i];
    return p;
}

/* A value as a module: a module, a list of modules, a parameter, or None
 * (nothing); false for anything else. */
bool oom_mod_as_module(const value *v, mod *out)
{
    memset(out, 0, sizeof *out);
    if (v->kind == V_MODULE) {
        *out = v->m;
        return true;
    }
    return v->kind == V_NONE;
}

static long long ipow(long long b, long long e)
{
    long long r = 1;
    for (long long i = 0; i < e && i < 64; i++)
        r *= b;
    return r;
}

/* Python's floor division on ints. */
static long long floor_div(long long a, long long b)
{
    long long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

bool oom_mod_seq_len(const value *v, long long *n)
{
    if (v->kind == V_SEQ || (v->kind == V_MODULE && v->plain && v->m.params == 0 && (!v->obj || v->items))) {
        *n = v->i; /* a list of strings, or an empty (or None-holding) plain list */
        return true;
    }
    if (v->kind == V_INTS) {
        *n = v->nints;
        return true;
    }
    return false;
}

long long oom_mod_str_len(const value *v)
{
    if (v->i > 0)
        return v->i;
    long long n = 0;
    for (const unsigned char *p = (const unsigned char *)v->s; *p; p++)
        n += (*p & 0xC0) != 0x80; /* UTF-8: count the lead bytes */
    return n;
}

value oom_mod_string(const char *text)
{
    value v = unknown();
    v.kind = V_STR;
    size_t len = strlen(text);
    memcpy(v.s, text, len < sizeof v.s ? len : sizeof v.s - 1);
    v.s[len < sizeof v.s ? len : sizeof v.s - 1] = '\0';
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        v.i += (*p & 0xC0) != 0x80;
    return v;
}

/* l + r of two sequences: a list of their lengths added (Python's list
 * and tuple concatenation), or the two strings joined. */
static bool concatenate(const value *l, const value *r, value *out)
{
    long long a, b;
    if (l->kind == V_STR && r->kind == V_STR) {
        char joined[128];
        snprintf(joined, sizeof joined, "%s%s", l->s, r->s);
        *out = oom_mod_string(joined);
        out->i = oom_mod_str_len(l) + oom_mod_str_len(r);
        return true;
    }
    if ((l->kind != V_SEQ && r->kind != V_SEQ) || !oom_mod_seq_len(l, &a) || !oom_mod_seq_len(r, &b))
        return false;
    *out = unknown();
    out->kind = V_SEQ;
    out->plain = true;
    out->i = a + b;
    return true;
}

value oom_mod_arithmetic(const value *l, const value *r, const char *op)
{
    value joined;
    if (strcmp(op, "+") == 0 && concatenate(l, r, &joined))
        return joined;
    if (l->kind == V_MODULE && r->kind == V_MODULE && strcmp(op, "+") == 0) { /* list + list */
        value v = *l;
        oom_mod_add(&v.m, &r->m);
        v.i = l->i + r->i;
        return v;
    }
    if (l->kind == V_INTS && r->kind == V_INTS && strcmp(op, "+") == 0 && l->nints + r->nints <= MAX_INTS) {
        value v = *l;
        memcpy(v.ints + v.nints, r->ints, sizeof(long long) * (size_t)r->nints);
        v.nints += r->nints;
        return v;
    }
    if ((l->kind == V_TENSOR && numeric(r)) || (r->kind == V_TENSOR && numeric(l)))
        return l->kind == V_TENSOR ? *l : *r; /* scaling keeps the shape */
    if (!numeric(l) || !numeric(r))
        return unknown();
    bool ints = l->kind != V_FLOAT && r->kind != V_FLOAT;
    long long a = l->i, b = r->i;
    double x = as_double(l), y = as_double(r);
    if (strcmp(op, "+") == 0)
        return ints ? int_value(a + b) : float_value(x + y);
    if (strcmp(op, "-") == 0)
        return ints ? int_value(a - b) : float_value(x - y);
    if (strcmp(op, "*") == 0)
        return ints ? int_value(a * b) : float_value(x * y);
    if (strcmp(op, "/") == 0)
        return y != 0 ? float_value(x / y) : unknown();
    if (strcmp(op, "//") == 0)
        return !ints ? (y != 0 ? float_value(floor(x / y)) : unknown()) : b != 0 ? int_value(floor_div(a, b)) : unknown();
    if (strcmp(op, "%") == 0)
        return ints && b != 0 ? int_value(a - floor_div(a, b) * b) : unknown();
    if (strcmp(op, "**") == 0)
        return ints && b >= 0 ? int_value(ipow(a, b)) : float_value(pow(x, y));
    if (strcmp(op, "<<") == 0)
        return ints && b >= 0 && b < 62 ? int_value(a << b) : unknown();
    if (strcmp(op, ">>") == 0)
        return ints && b >= 0 && b < 62 ? int_value(a >> b) : unknown();
    return unknown();
}
