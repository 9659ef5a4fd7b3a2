/* Recursive-descent parser: C (the subset a ParaC program needs, see
 * docs/parac-language.md) plus the ParaC productions. Produces the AST;
 * names are resolved later by sema.c. On a syntax error the parser reports
 * it, skips to the next ';' or '}' and goes on, so one run shows several
 * errors. Recursion depth is bounded so no input overflows the stack. */
#include <string.h>

#include "lang/parse.h"

static const char *builtin_typedefs[] = {
    "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "FILE", "bool", "wchar_t",
    "off_t", "time_t", "clock_t", "va_list", "parac_image", "parac_status", "parac_context",
};

void parse_error_here(Parser *P, const char *fmt, const char *what)
{
    if (!P->failed) diag_error_tok(P->tok, fmt, what);
    P->failed = true;
}

bool parse_consume(Parser *P, const char *s)
{
    if (equal(P, s)) {
        P->last = P->tok;
        P->tok = P->tok->next;
        return true;
    }
    return false;
}

void parse_expect(Parser *P, const char *s)
{
    if (!parse_consume(P, s)) {
        char buf[64];
        snprintf(buf, sizeof buf, "'%s'", s);
        if (!P->failed) {
            if (P->tok->kind == TK_EOF)
                diag_error_tok(P->tok, "expected %s before end of file", buf);
            else
                diag_error_tok(P->tok, "expected %s before '%.*s'", buf, P->tok->len, P->tok->loc);
        }
        P->failed = true;
    }
}

static bool is_typedef_name(Parser *P, Token *t)
{
    if (t->kind != TK_IDENT) return false;
    for (int i = 0; i < P->ntypedefs; i++)
        if (tok_is(t, P->typedefs[i])) return true;
    for (size_t i = 0; i < sizeof builtin_typedefs / sizeof *builtin_typedefs; i++)
        if (tok_is(t, builtin_typedefs[i])) return true;
    return false;
}

static void add_typedef(Parser *P, const char *name)
{
    if (P->ntypedefs == P->captypedefs) {
        int cap = P->captypedefs ? P->captypedefs * 2 : 16;
        const char **a = lang_alloc(sizeof *a * (size_t)cap);
        if (P->ntypedefs) memcpy(a, P->typedefs, sizeof *a * (size_t)P->ntypedefs);
        P->typedefs = a;
        P->captypedefs = cap;
    }
    P->typedefs[P->ntypedefs++] = name;
}

bool parse_is_type_start(Parser *P, Token *t)
{
    static const char *kw[] = {"void", "char", "short", "int", "long", "float", "double",
                               "signed", "unsigned", "_Bool", "struct", "union", "enum",
                               "typedef", "static", "extern", "const", "volatile", "inline",
                               "auto", "register", "restrict", "__restrict", "__inline",
                               "parac_matrix", "parac_vector", "parac_pyramid"};
    if (t->kind == TK_KEYWORD)
        for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
            if (tok_is(t, kw[i])) return true;
    return is_typedef_name(P, t);
}

/* ---- declarations --------------------------------------------------------- */

static Node *stmt(Parser *P);
static Node *compound(Parser *P);

/* struct/union/enum X or struct X {...}: kept as an opaque type; a body is
 * skipped (its text is passed through by the caller). */
static Type *tagged_type(Parser *P)
{
    Token *kw = P->tok;
    P->tok = P->tok->next;
    char *name = NULL;
    if (P->tok->kind == TK_IDENT) {
        name = lang_format("%.*s %.*s", kw->len, kw->loc, P->tok->len, P->tok->loc);
        P->tok = P->tok->next;
    }
    if (equal(P, "{")) {
        int depth = 0;
        do {
            if (equal(P, "{")) depth++;
            if (equal(P, "}")) depth--;
            P->tok = P->tok->next;
        } while (depth > 0 && P->tok->kind != TK_EOF);
        if (depth > 0) parse_error_here(P, "%s: unterminated body", "struct");
    }
    if (!name) name = lang_format("%.*s /* anonymous */", kw->len, kw->loc);
    Type *t = lang_alloc(sizeof *t);
    t->kind = TY_OPAQUE;
    t->name = name;
    return t;
}

DeclSpec parse_declspec(Parser *P)
{
    DeclSpec ds = {0};
    int n_long = 0, n_short = 0, n_int = 0, n_char = 0, n_sign = 0, n_unsign = 0;
    TypeKind base = TY_INT;
    bool seen_base = false, is_const = false;
    Type *other = NULL;
    for (;;) {
        Token *t = P->tok;
        if (tok_is(t, "typedef")) ds.is_typedef = true;
        else if (tok_is(t, "static")) ds.is_static = true;
        else if (tok_is(t, "extern")) ds.is_extern = true;
        else if (tok_is(t, "inline") || tok_is(t, "__inline")) ds.is_inline = true;
        else if (tok_is(t, "auto") || tok_is(t, "register") || tok_is(t, "volatile") ||
                 tok_is(t, "restrict") || tok_is(t, "__restrict"))
            ;
        else if (tok_is(t, "const")) is_const = true;
        else if (tok_is(t, "parac_matrix")) ds.matrix = true;
        else if (tok_is(t, "parac_vector")) ds.matrix = ds.vector = true;
        else if (tok_is(t, "parac_pyramid")) ds.matrix = ds.pyramid = true;
        else if (tok_is(t, "void")) { base = TY_VOID; seen_base = true; }
        else if (tok_is(t, "_Bool")) { base = TY_BOOL; seen_base = true; }
        else if (tok_is(t, "char")) { n_char++; seen_base = true; }
        else if (tok_is(t, "short")) { n_short++; seen_base = true; }
        else if (tok_is(t, "int")) { n_int++; seen_base = true; }
        else if (tok_is(t, "long")) { n_long++; seen_base = true; }
        else if (tok_is(t, "float")) { base = TY_FLOAT; seen_base = true; }
        else if (tok_is(t, "double")) { base = TY_DOUBLE; seen_base = true; }
        else if (tok_is(t, "signed")) { n_sign++; seen_base = true; }
        else if (tok_is(t, "unsigned")) { n_unsign++; seen_base = true; }
        else if (tok_is(t, "struct") || tok_is(t, "union") || tok_is(t, "enum")) {
            if (seen_base || other) parse_error_here(P, "%s: two types in one declaration", "struct");
            other = tagged_type(P);
            continue;
        } else if (!seen_base && !other && is_typedef_name(P, t)) {
            other = lang_alloc(sizeof *other);
            other->kind = TY_OPAQUE;
            other->name = tok_text(t);
        } else
            break;
        P->tok = P->tok->next;
    }
    Type *ty;
    if (other) {
        ty = other;
    } else {
        if (n_char) base = TY_CHAR;
        else if (n_short) base = TY_SHORT;
        else if (n_long >= 2) base = TY_LLONG;
        else if (n_long == 1 && base == TY_DOUBLE) base = TY_LDOUBLE;
        else if (n_long == 1) base = TY_LONG;
        (void)n_int;
        (void)n_sign;
        ty = ty_basic(base, n_unsign > 0);
        if (!seen_base && !ds.matrix)
            parse_error_here(P, "%s", "expected a type");
    }
    if (is_const) {
        Type *c = lang_alloc(sizeof *c);
        *c = *ty;
        c->is_const = true;
        ty = c;
    }
    ds.ty = ty;
    return ds;
}

Type *parse_pointer_to(Type *base)
{
    Type *t = lang_alloc(sizeof *t);
    t->kind = TY_PTR;
    t->base = base;
    return t;
}

static Node *param_list(Parser *P, bool *variadic);

/* { a, b, { c, d } }: nested braces flatten in row-major order. */
static void init_items(Parser *P, Node **cur, int depth)
{
    parse_expect(P, "{");
    if (depth > 8) {
        parse_error_here(P, "%s", "initialiser nested too deeply");
        return;
    }
    while (!P->failed && !equal(P, "}") && P->tok->kind != TK_EOF) {
        if (equal(P, "{"))
            init_items(P, cur, depth + 1);
        else
            *cur = (*cur)->next = parse_assign(P);
        if (!parse_consume(P, ",")) break;
    }
    parse_expect(P, "}");
}

/* One declarator. Fills a ND_DECL node: var name in n->name, type in n->ty,
 * reference flag, init. */
static Node *declarator(Parser *P, DeclSpec *ds)
{
    Node *d = new_node(ND_DECL, P->tok);
    Type *ty = ds->ty;
    bool is_ref = false;
    int stars = 0;
    while (equal(P, "*") || equal(P, "const") || equal(P, "restrict") || equal(P, "__restrict") ||
           equal(P, "volatile")) {
        if (parse_consume(P, "*")) {
            ty = parse_pointer_to(ty);
            if (++stars > 32) {
                parse_error_here(P, "%s", "too many levels of pointers");
                return d;
            }
        } else
            P->tok = P->tok->next;
    }
    if (equal(P, "&")) {
        if (!ds->matrix) parse_error_here(P, "%s", "'&' references are only for parac_matrix and parac_vector");
        is_ref = true;
        P->tok = P->tok->next;
    }
    if (equal(P, "(")) {
        parse_error_here(P, "%s", "function pointer declarators are not supported");
        return d;
    }
    if (P->tok->kind != TK_IDENT) {
        parse_error_here(P, "%s", "expected a name in the declaration");
        return d;
    }
    d->tok = P->tok;
    d->name = tok_text(P->tok);
    P->tok = P->tok->next;
    Node *levels = NULL;
    if (ds->pyramid) {
        /* P[LEVELS][D0][D1]...: the number of levels first, then level 0's sizes */
        if (is_ref) diag_error_tok(d->tok, "a parac_pyramid is declared in a function, not bound to C storage with '&'");
        if (parse_consume(P, "[")) {
            levels = parse_assign(P);
            parse_expect(P, "]");
        } else
            parse_error_here(P, "%s", "a parac_pyramid declaration needs its number of levels, then the sizes of "
                             "level 0, e.g. P[L][H][W]");
    }
    if (ds->matrix) {
        Type *m = lang_alloc(sizeof *m);
        m->kind = TY_MATRIX;
        m->base = ty;
        m->is_vector = ds->vector;
        while (equal(P, "[")) {
            Token *lb = P->tok;
            P->tok = P->tok->next;
            Node *e = parse_assign(P);
            parse_expect(P, "]");
            if (m->ndim == 3) {
                diag_error_tok(lb, "a parac_matrix has at most 3 dimensions");
                continue;
            }
            m->dims[m->ndim++] = e;
        }
        if (m->ndim == 0) parse_error_here(P, "%s", "a parac_matrix declaration needs its sizes, e.g. M[H][W]");
        if (ds->vector && m->ndim > 1) diag_error_tok(d->tok, "a parac_vector has one dimension");
        d->ty = m;
        if (ds->pyramid) {
            Type *py = lang_alloc(sizeof *py);
            py->kind = TY_PYRAMID;
            py->base = m;
            py->array_len = levels;
            d->ty = py;
        }
        d->is_typedef = is_ref; /* reused as "is reference" flag on declarators */
        d->cast_ty = m;
    } else {
        for (int suffixes = 0;; suffixes++) {
            if (suffixes == 32) {
                parse_error_here(P, "%s", "too many array or function suffixes");
                return d;
            }
            if (parse_consume(P, "[")) {
                Node *len = equal(P, "]") ? NULL : parse_assign(P);
                parse_expect(P, "]");
                Type *a = lang_alloc(sizeof *a);
                a->kind = TY_ARRAY;
                a->array_len = len;
                /* int a[2][3]: the innermost bracket is the element */
                if (ty->kind == TY_ARRAY) {
                    Type *t = ty;
                    while (t->base && t->base->kind == TY_ARRAY) t = t->base;
                    a->base = t->base;
                    t->base = a;
                } else {
                    a->base = ty;
                    ty = a;
                }
            } else if (parse_consume(P, "(")) {
                Type *f = lang_alloc(sizeof *f);
                f->kind = TY_FUNC;
                f->base = ty;
                f->params = param_list(P, &f->variadic);
                ty = f;
            } else
                break;
        }
        d->ty = ty;
    }
    if (parse_consume(P, "=")) {
        if (equal(P, "{")) {
            Node *list = new_node(ND_INIT_LIST, P->tok);
            Node head = {0}, *cur = &head;
            init_items(P, &cur, 0);
            list->args = head.next;
            d->init = list;
        } else {
            d->init = parse_assign(P);
        }
    }
    return d;
}

static Node *param_list(Parser *P, bool *variadic)
{
    Node head = {0}, *cur = &head;
    if (equal(P, "void") && tok_is(P->tok->next, ")")) {
        P->tok = P->tok->next->next;
        return NULL;
    }
    while (!parse_consume(P, ")")) {
        if (P->tok->kind == TK_EOF || P->failed) {
            parse_error_here(P, "%s", "unterminated parameter list");
            return head.next;
        }
        if (cur != &head) parse_expect(P, ",");
        if (parse_consume(P, "...")) {
            *variadic = true;
            continue;
        }
        DeclSpec ds = parse_declspec(P);
        Node *d;
        if (equal(P, ",") || equal(P, ")")) {
            d = new_node(ND_DECL, P->tok);
            d->ty = ds.ty;
        } else {
            d = declarator(P, &ds);
        }
        d->kind = ND_PARAM;
        /* array parameters decay to pointers */
        if (d->ty && d->ty->kind == TY_ARRAY) d->ty = parse_pointer_to(d->ty->base);
        cur = cur->next = d;
        if (P->failed) return head.next;
    }
    return head.next;
}

/* A declaration statement after its specifiers. */
static Node *declaration(Parser *P, DeclSpec *ds, Token *start)
{
    Node *n = new_node(ND_DECL, start);
    n->cast_ty = ds->ty;
    n->is_typedef = ds->is_typedef;
    n->is_static = ds->is_static;
    n->is_extern = ds->is_extern;
    Node head = {0}, *cur = &head;
    if (!equal(P, ";")) {
        do {
            Node *d = declarator(P, ds);
            if (P->failed) break;
            if (ds->is_typedef && d->name) add_typedef(P, d->name);
            cur = cur->next = d;
        } while (parse_consume(P, ","));
    }
    n->decls = head.next;
    parse_expect(P, ";");
    return n;
}

/* ---- statements ------------------------------------------------------------- */
/* After an error: skip to the end of the statement. */
static void recover(Parser *P)
{
    int depth = 0;
    while (P->tok->kind != TK_EOF) {
        if (equal(P, "{")) depth++;
        if (equal(P, "}")) {
            if (depth == 0) return;
            depth--;
            if (depth == 0) {
                P->tok = P->tok->next;
                return;
            }
        }
        if (equal(P, ";") && depth == 0) {
            P->tok = P->tok->next;
            return;
        }
        P->tok = P->tok->next;
    }
}

static bool looks_like_decl(Parser *P)
{
    Token *t = P->tok;
    if (t->kind == TK_KEYWORD) return parse_is_type_start(P, t);
    if (is_typedef_name(P, t)) {
        Token *n = t->next;
        return n->kind == TK_IDENT || tok_is(n, "*") || tok_is(n, "&") || tok_is(n, "const") ||
               tok_is(n, "parac_matrix") || tok_is(n, "parac_vector") || tok_is(n, "parac_pyramid");
    }
    /* an unknown name followed by a name: a type from a header */
    if (t->kind == TK_IDENT && t->next->kind == TK_IDENT) return true;
    return false;
}

static Range range(Parser *P, Token **stride_tok, Node **stride)
{
    Range r = {0};
    r.lb = parse_assign(P);
    parse_expect(P, ":");
    r.ub = parse_assign(P);
    r.stride = 1;
    *stride = NULL;
    *stride_tok = P->tok;
    if (parse_consume(P, ":")) *stride = parse_assign(P);
    return r;
}


/* `(a, b, ...)`: the names, chained by next (`what` names one in a message) */
static Node *name_list(Parser *P, const char *what)
{
    Node head = {0}, *cur = &head;
    parse_expect(P, "(");
    do {
        if (P->tok->kind != TK_IDENT) {
            parse_error_here(P, "expected %s", what);
            break;
        }
        cur = cur->next = new_node(ND_VAR, P->tok);
        cur->name = tok_text(P->tok);
        P->tok = P->tok->next;
    } while (parse_consume(P, ","));
    parse_expect(P, ")");
    return head.next;
}

/* `(a, b, ...)` after parac_border_rule: the rules an iterator reads through */
static Node *rule_names(Parser *P)
{
    return name_list(P, "a border rule name");
}

static Node *iterator_stmt(Parser *P)
{
    Token *start = P->tok;
    P->tok = P->tok->next;
    Node *n = new_node(ND_ITERATOR, start);
    Iterator *it = lang_alloc(sizeof *it);
    n->iter = it;
    it->tok = start;
    if (P->tok->kind != TK_IDENT) {
        parse_error_here(P, "%s", "expected the iterator's name after parac_iterator");
        return n;
    }
    it->name = tok_text(P->tok);
    n->name = it->name;
    P->tok = P->tok->next;
    parse_expect(P, "(");
    if (parse_consume(P, "iter_element")) {
        it->iter_element = true;
        parse_expect(P, ";");
    }
    Node *strides[3] = {0};
    Token *stoks[3] = {0};
    while (!P->failed) {
        if (it->ndim == 3) {
            parse_error_here(P, "%s", "an iterator has at most 3 dimensions");
            break;
        }
        it->r[it->ndim] = range(P, &stoks[it->ndim], &strides[it->ndim]);
        it->ndim++;
        if (!parse_consume(P, ";")) break;
    }
    parse_expect(P, ")");
    for (int d = 0; d < it->ndim; d++) {
        if (!strides[d]) continue;
        bool ok = false;
        long s = const_eval(strides[d], &ok);
        if (!ok)
            diag_error_tok(strides[d]->tok, "the stride of iterator '%s' must be a compile-time constant", it->name);
        else if (s <= 0)
            diag_error_tok(strides[d]->tok, "the stride of iterator '%s' must be positive", it->name);
        else
            it->r[d].stride = s;
    }
    if (parse_consume(P, "parac_border_rule")) {
        it->rule_name = rule_names(P);
    }
    if (P->failed) return n;
    if (P->in_iter) {
        diag_error_tok(start, "parac_iterator '%s' is nested inside iterator '%s'; iterators do not nest",
                       it->name, P->in_iter->name);
        diag_note_tok(P->in_iter->tok, "the enclosing iterator is here");
    }
    Iterator *outer = P->in_iter;
    P->in_iter = it;
    it->body = stmt(P);
    P->in_iter = outer;
    n->body = it->body;
    return n;
}

static Node *border_rule_decl(Parser *P)
{
    Token *start = P->tok;
    P->tok = P->tok->next;
    Node *n = new_node(ND_BORDER_RULE, start);
    if (P->tok->kind != TK_IDENT) {
        parse_error_here(P, "%s", "expected the border rule's name");
        return n;
    }
    n->name = tok_text(P->tok);
    P->tok = P->tok->next;
    if (equal(P, "(")) /* parac_border_rule NAME(d): d counts the places outside, from 1 */
        n->args = name_list(P, "the name of the rule's distance");
    parse_expect(P, "{");
    Node head = {0}, *cur = &head;
    P->in_rule = true;
    while (!P->failed && !equal(P, "}") && P->tok->kind != TK_EOF) {
        Node *e = new_node(ND_EXPR_STMT, P->tok);
        e->lhs = parse_expr(P);
        parse_expect(P, ";");
        cur = cur->next = e;
    }
    P->in_rule = false;
    parse_expect(P, "}");
    parse_consume(P, ";");
    n->body = head.next;
    return n;
}

static Node *stmt_inner(Parser *P)
{
    Token *t = P->tok;
    Node *n;
    if (equal(P, "{")) return compound(P);
    if (parse_consume(P, ";")) return new_node(ND_NULL_STMT, t);
    if (equal(P, "parac_iterator")) return iterator_stmt(P);
    if (equal(P, "parac_border_rule")) return border_rule_decl(P);
    if (parse_consume(P, "if")) {
        n = new_node(ND_IF, t);
        parse_expect(P, "(");
        n->cond = parse_expr(P);
        parse_expect(P, ")");
        n->then = stmt(P);
        if (parse_consume(P, "else")) n->els = stmt(P);
        return n;
    }
    if (parse_consume(P, "while")) {
        n = new_node(ND_WHILE, t);
        parse_expect(P, "(");
        n->cond = parse_expr(P);
        parse_expect(P, ")");
        n->body = stmt(P);
        return n;
    }
    if (parse_consume(P, "do")) {
        n = new_node(ND_DO, t);
        n->body = stmt(P);
        parse_expect(P, "while");
        parse_expect(P, "(");
        n->cond = parse_expr(P);
        parse_expect(P, ")");
        parse_expect(P, ";");
        return n;
    }
    if (parse_consume(P, "for")) {
        n = new_node(ND_FOR, t);
        parse_expect(P, "(");
        if (looks_like_decl(P)) {
            Token *s = P->tok;
            DeclSpec ds = parse_declspec(P);
            n->init = declaration(P, &ds, s);
        } else if (!parse_consume(P, ";")) {
            n->init = new_node(ND_EXPR_STMT, P->tok);
            n->init->lhs = parse_expr(P);
            parse_expect(P, ";");
        }
        if (!equal(P, ";")) n->cond = parse_expr(P);
        parse_expect(P, ";");
        if (!equal(P, ")")) n->inc = parse_expr(P);
        parse_expect(P, ")");
        n->body = stmt(P);
        return n;
    }
    if (parse_consume(P, "switch")) {
        n = new_node(ND_SWITCH, t);
        parse_expect(P, "(");
        n->cond = parse_expr(P);
        parse_expect(P, ")");
        n->body = stmt(P);
        return n;
    }
    if (parse_consume(P, "case")) {
        n = new_node(ND_CASE, t);
        n->lhs = parse_conditional(P);
        parse_expect(P, ":");
        return n;
    }
    if (parse_consume(P, "default")) {
        n = new_node(ND_DEFAULT, t);
        parse_expect(P, ":");
        return n;
    }
    if (parse_consume(P, "return")) {
        n = new_node(ND_RETURN, t);
        if (!equal(P, ";")) n->lhs = parse_expr(P);
        parse_expect(P, ";");
        return n;
    }
    if (parse_consume(P, "break")) {
        parse_expect(P, ";");
        return new_node(ND_BREAK, t);
    }
    if (parse_consume(P, "continue")) {
        parse_expect(P, ";");
        return new_node(ND_CONTINUE, t);
    }
    if (parse_consume(P, "goto")) {
        n = new_node(ND_GOTO, t);
        if (P->tok->kind == TK_IDENT) {
            n->name = tok_text(P->tok);
            P->tok = P->tok->next;
        } else
            parse_error_here(P, "%s", "expected a label after goto");
        parse_expect(P, ";");
        return n;
    }
    if (t->kind == TK_IDENT && tok_is(t->next, ":")) {
        n = new_node(ND_LABEL, t);
        n->name = tok_text(t);
        P->tok = t->next->next;
        return n;
    }
    if (t->kind == TK_DIRECTIVE) {
        parse_error_here(P, "%s", "preprocessor directives are only supported outside functions");
        P->tok = t->next;
        return new_node(ND_NULL_STMT, t);
    }
    if (looks_like_decl(P)) {
        DeclSpec ds = parse_declspec(P);
        return declaration(P, &ds, t);
    }
    n = new_node(ND_EXPR_STMT, t);
    n->lhs = parse_expr(P);
    if (equal(P, "parac_border_rule")) {
        n->rule_tok = P->tok;
        P->tok = P->tok->next;
        n->whole_rule_name = rule_names(P);
    }
    parse_expect(P, ";");
    return n;
}

static Node *stmt(Parser *P)
{
    if (!parse_enter(P)) {
        recover(P);
        return new_node(ND_NULL_STMT, P->tok);
    }
    P->failed = false;
    Token *before = P->tok;
    Node *n = stmt_inner(P);
    if (P->failed) {
        bool ended = P->last && tok_is(P->last, ";") && P->last->next == P->tok && P->tok != before;
        if (P->tok == before && P->tok->kind != TK_EOF) P->tok = P->tok->next;
        if (!ended) recover(P); /* the statement's own ';' was already read */
        P->failed = false;
        n = new_node(ND_NULL_STMT, before);
    }
    P->depth--;
    return n;
}

static Node *compound(Parser *P)
{
    Node *b = new_node(ND_BLOCK, P->tok);
    parse_expect(P, "{");
    Node head = {0}, *cur = &head;
    while (!equal(P, "}")) {
        if (P->tok->kind == TK_EOF) {
            diag_error_tok(b->tok, "this '{' is never closed");
            break;
        }
        if (diag_too_many()) {
            P->tok = P->tok->next;
            continue;
        }
        cur = cur->next = stmt(P);
    }
    parse_consume(P, "}");
    b->args = head.next;
    return b;
}

/* ---- top level -------------------------------------------------------------- */
static Node *top_item(Parser *P)
{
    Token *start = P->tok;
    if (start->kind == TK_DIRECTIVE) {
        Node *d = new_node(ND_DIRECTIVE, start);
        d->text = tok_text(start);
        P->tok = start->next;
        return d;
    }
    if (parse_consume(P, ";")) return NULL;
    if (equal(P, "parac_border_rule")) return border_rule_decl(P);
    if (equal(P, "parac_iterator")) {
        parse_error_here(P, "%s", "parac_iterator must be inside a function");
        return NULL;
    }
    if (!parse_is_type_start(P, start) && !(start->kind == TK_IDENT && start->next->kind == TK_IDENT)) {
        if (start->kind == TK_IDENT && tok_is(start->next, "("))
            parse_error_here(P, "%s", "function definitions need a return type (no implicit int)");
        else
            parse_error_here(P, "%s", "expected a declaration or a function definition");
        return NULL;
    }
    /* struct/union/enum definitions: passed through as text */
    bool tagged_def = false;
    for (Token *t = start; t->kind != TK_EOF && !tok_is(t, ";") && !tok_is(t, "("); t = t->next) {
        if (tok_is(t, "{")) {
            for (Token *u = start; u != t; u = u->next)
                if (tok_is(u, "struct") || tok_is(u, "union") || tok_is(u, "enum")) tagged_def = true;
            break;
        }
        if (tok_is(t, "=")) break;
    }
    DeclSpec ds = parse_declspec(P);
    if (P->failed) return NULL;
    if (tagged_def) {
        /* copy everything up to the ';' */
        Node head = {0};
        Node *d = declaration(P, &ds, start);
        (void)head;
        Node *v = new_node(ND_VERBATIM, start);
        Token *endt = P->tok;
        v->text = lang_strndup(start->loc, (size_t)(endt->loc - start->loc));
        v->decls = d->decls;
        v->is_typedef = ds.is_typedef;
        return v;
    }
    if (equal(P, ";")) {
        P->tok = P->tok->next;
        return NULL;
    }
    Node *d = declarator(P, &ds);
    if (P->failed) return NULL;
    if (d->ty && d->ty->kind == TY_FUNC && equal(P, "{")) {
        Node *f = new_node(ND_FUNC, d->tok);
        f->name = d->name;
        f->ty = d->ty;
        f->is_static = ds.is_static;
        f->is_inline = ds.is_inline;
        f->body = compound(P);
        return f;
    }
    /* a declaration: the first declarator is parsed already */
    Node *n = new_node(ND_DECL, start);
    n->cast_ty = ds.ty;
    n->is_typedef = ds.is_typedef;
    n->is_static = ds.is_static;
    n->is_extern = ds.is_extern;
    if (ds.is_typedef && d->name) add_typedef(P, d->name);
    Node *cur = n->decls = d;
    while (parse_consume(P, ",")) {
        Node *x = declarator(P, &ds);
        if (P->failed) break;
        if (ds.is_typedef && x->name) add_typedef(P, x->name);
        cur = cur->next = x;
    }
    parse_expect(P, ";");
    return n;
}

Program *parse_program(SourceFile *file, Token *tokens)
{
    Parser P = {0};
    P.tok = tokens;
    P.file = file;
    Program *prog = lang_alloc(sizeof *prog);
    prog->file = file;
    Node head = {0}, *cur = &head;
    while (P.tok->kind != TK_EOF && !diag_too_many()) {
        P.failed = false;
        Token *before = P.tok;
        P.depth = 0;
        Node *n = top_item(&P);
        if (P.failed) {
            if (P.tok == before) P.tok = P.tok->next;
            recover(&P);
            continue;
        }
        if (n) cur = cur->next = n;
    }
    prog->top = head.next;
    return prog;
}
