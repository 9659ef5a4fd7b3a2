/* C types as the compiler needs them: kinds, promotions, spellings, and
 * integer constant folding (iterator strides, window lengths, border rules). */
#include <string.h>

#include "lang/lang.h"

Type *ty_basic(TypeKind k, bool is_unsigned)
{
    Type *t = lang_alloc(sizeof *t);
    t->kind = k;
    t->is_unsigned = is_unsigned;
    return t;
}

bool ty_is_integer(const Type *t)
{
    return t && t->kind >= TY_BOOL && t->kind <= TY_LLONG;
}
bool ty_is_float(const Type *t)
{
    return t && (t->kind == TY_FLOAT || t->kind == TY_DOUBLE || t->kind == TY_LDOUBLE);
}
bool ty_is_arith(const Type *t) { return ty_is_integer(t) || ty_is_float(t); }
bool ty_is_scalar(const Type *t)
{
    return t && (ty_is_arith(t) || t->kind == TY_PTR || t->kind == TY_OPAQUE);
}

int ty_rank(const Type *t)
{
    switch (t ? t->kind : TY_INT) {
    case TY_BOOL: return 1;
    case TY_CHAR: return 2;
    case TY_SHORT: return 3;
    case TY_INT: return 4;
    case TY_LONG: return 5;
    case TY_LLONG: return 6;
    case TY_FLOAT: return 7;
    case TY_DOUBLE: return 8;
    case TY_LDOUBLE: return 9;
    default: return 4;
    }
}

Type *ty_common(Type *a, Type *b)
{
    if (!ty_is_arith(a)) return ty_is_arith(b) ? b : ty_basic(TY_INT, false);
    if (!ty_is_arith(b)) return a;
    int ra = ty_rank(a), rb = ty_rank(b);
    if (ra < 4 && rb < 4) return ty_basic(TY_INT, false);
    if (ra == rb) return (a->is_unsigned || b->is_unsigned) ? ty_basic(a->kind, true) : a;
    Type *hi = ra > rb ? a : b;
    if (ty_rank(hi) < 4) return ty_basic(TY_INT, false);
    return hi;
}

size_t ty_size(const Type *t)
{
    switch (t ? t->kind : TY_VOID) {
    case TY_BOOL: case TY_CHAR: return 1;
    case TY_SHORT: return 2;
    case TY_INT: case TY_FLOAT: return 4;
    case TY_LONG: case TY_LLONG: case TY_DOUBLE: case TY_PTR: return 8;
    default: return 0;
    }
}

const char *ty_c_name(const Type *t, bool opencl)
{
    if (!t) return "int";
    const char *u = t->is_unsigned ? "unsigned " : "";
    const char *s;
    switch (t->kind) {
    case TY_VOID: return "void";
    case TY_BOOL: return opencl ? "bool" : "_Bool";
    case TY_CHAR: s = "char"; break;
    case TY_SHORT: s = "short"; break;
    case TY_INT: s = "int"; break;
    case TY_LONG: s = "long"; break;
    case TY_LLONG: s = opencl ? "long" : "long long"; break;
    case TY_FLOAT: return "float";
    case TY_DOUBLE: return "double";
    case TY_LDOUBLE: return opencl ? "double" : "long double";
    case TY_OPAQUE: return t->name;
    case TY_PTR: return lang_format("%s *", ty_c_name(t->base, opencl));
    case TY_MATRIX: case TY_SMALL: case TY_ARRAY: case TY_PYRAMID: return ty_c_name(t->base, opencl);
    default: return "int";
    }
    return lang_format("%s%s", u, s);
}

int small_rows(const Type *t) { return t && t->kind == TY_SMALL ? t->rows : 1; }
int small_cols(const Type *t) { return t && t->kind == TY_SMALL ? t->cols : 1; }

/* Integer constant folding; *ok = false when not a constant. */
long const_eval(Node *n, bool *ok)
{
    *ok = false;
    if (!n) return 0;
    bool a = false, b = false;
    long x, y;
    switch (n->kind) {
    case ND_NUM:
        if (n->tok->is_float) return 0;
        *ok = true;
        return (long)n->tok->ival;
    case ND_UNARY:
        x = const_eval(n->lhs, &a);
        if (!a) return 0;
        *ok = true;
        if (!strcmp(n->op, "-")) return -x;
        if (!strcmp(n->op, "+")) return x;
        if (!strcmp(n->op, "~")) return ~x;
        if (!strcmp(n->op, "!")) return !x;
        *ok = false;
        return 0;
    case ND_BINARY:
        x = const_eval(n->lhs, &a);
        y = const_eval(n->rhs, &b);
        if (!a || !b) return 0;
        *ok = true;
        if (x > (1L << 40) || x < -(1L << 40) || y > (1L << 40) || y < -(1L << 40)) {
            *ok = false;
            return 0;
        }
        switch (n->op[0]) {
        case '+': return x + y;
        case '-': return x - y;
        case '*': return n->op[1] ? 0 : x * y;
        case '/': if (y == 0) { *ok = false; return 0; } return x / y;
        case '%': if (y == 0) { *ok = false; return 0; } return x % y;
        case '<': if (n->op[1] == '<') { if (y < 0 || y > 30) { *ok = false; return 0; } return x << y; }
                  return n->op[1] == '=' ? x <= y : x < y;
        case '>': if (n->op[1] == '>') { if (y < 0 || y > 62) { *ok = false; return 0; } return x >> y; }
                  return n->op[1] == '=' ? x >= y : x > y;
        case '&': return n->op[1] ? (x && y) : (x & y);
        case '|': return n->op[1] ? (x || y) : (x | y);
        case '^': return x ^ y;
        case '=': return x == y;
        case '!': return x != y;
        }
        *ok = false;
        return 0;
    case ND_CAST:
        if (!ty_is_integer(n->cast_ty)) return 0;
        return const_eval(n->lhs, ok);
    case ND_VAR: /* a name: an object-like macro of constant value (sema_macros.c), else not constant */
        return n->var ? 0 : lang_macro_value(n->name, ok);
    default:
        return 0;
    }
}

const char *parac_op_name(ParacOpKind k)
{
    switch (k) {
    case OP_SUM: return "parac_matrix_sum";
    case OP_MIN: return "parac_matrix_min";
    case OP_MAX: return "parac_matrix_max";
    case OP_MEAN: return "parac_matrix_mean";
    case OP_CONV: return "parac_convolution";
    case OP_KTH: return "parac_matrix_kth";
    case OP_MEDIAN: return "parac_matrix_median";
    }
    return "?";
}
