/* Recursive-descent parser: C (the subset a ParaC program needs, see
 * docs/parac-language.md) plus the ParaC productions. Produces the AST;
 * names are resolved later by sema.c. On a syntax error the parser reports
 * it, skips to the next ';' or '}' and goes on, so one run shows several
 * errors. Recursion depth is bounded so no input overflows the stack. */
#include <string.h>

#include "lang/lang.h"

typedef struct Parser {
    Token *tok;
    SourceFile *file;
    const char **typedefs;
    int ntypedefs, captypedefs;
    int depth;          /* expression/statement nesting */
    Iterator *in_iter;  /* enclosing iterator: they do not nest */
    bool in_rule;       /* inside a border rule: '*' is an index */
    bool failed;        /* an error in the current statement: skip it */
    Token *last;        /* the last token consumed by consume()/expect() */
} Parser;

enum { MAX_DEPTH = 200 };

static const char *builtin_typedefs[] = {
    "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "FILE", "bool", "wchar_t",
    "off_t", "time_t", "clock_t", "va_list", "parac_image", "parac_status", "parac_context",
};

static void error_here(Parser *P, const char *fmt, const char *what)
{
    if (!P->failed) diag_error_tok(P->tok, fmt, what);
    P->failed = true;
}

static bool equal(Parser *P, const char *s) { return tok_is(P->tok, s); }

static bool consume(Parser *P, const char *s)
{
    if (equal(P, s)) {
        P->last = P->tok;
        P->tok = P->tok->next;
        return true;
    }
    return false;
}

static void expect(Parser *P, const char *s)
{
    if (!consume(P, s)) {
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

static bool is_type_start(Parser *P, Token *t)
{
    static const char *kw[] = {"void", "char", "short", "int", "long", "float", "double",
                               "signed", "unsigned", "_Bool", "struct", "union", "enum",
                               "typedef", "static", "extern", "const", "volatile", "inline",
                               "auto", "register", "restrict", "__restrict", "__inline",
                               "parac_matrix", "parac_vector"};
    if (t->kind == TK_KEYWORD)
        for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
            if (tok_is(t, kw[i])) return true;
    return is_typedef_name(P, t);
}

/* ---- declarations --------------------------------------------------------- */
typedef struct DeclSpec {
    Type *ty;
    bool is_typedef, is_static, is_extern, is_inline;
    bool matrix, vector;
} DeclSpec;

static Node *assign(Parser *P);
static Node *expr(Parser *P);
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
        if (depth > 0) error_here(P, "%s: unterminated body", "struct");
    }
    if (!name) name = lang_format("%.*s /* anonymous */", kw->len, kw->loc);
    Type *t = lang_alloc(sizeof *t);
    t->kind = TY_OPAQUE;
    t->name = name;
    return t;
}

static DeclSpec declspec(Parser *P)
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
            if (seen_base || other) error_here(P, "%s: two types in one declaration", "struct");
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
            error_here(P, "%s", "expected a type");
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

static Type *pointer_to(Type *base)
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
    expect(P, "{");
    if (depth > 8) {
        error_here(P, "%s", "initialiser nested too deeply");
        return;
    }
    while (!P->failed && !equal(P, "}") && P->tok->kind != TK_EOF) {
        if (equal(P, "{"))
            init_items(P, cur, depth + 1);
        else
            *cur = (*cur)->next = assign(P);
        if (!consume(P, ",")) break;
    }
    expect(P, "}");
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
        if (consume(P, "*")) {
            ty = pointer_to(ty);
            if (++stars > 32) {
                error_here(P, "%s", "too many levels of pointers");
                return d;
            }
        } else
            P->tok = P->tok->next;
    }
    if (equal(P, "&")) {
        if (!ds->matrix) error_here(P, "%s", "'&' references are only for parac_matrix and parac_vector");
        is_ref = true;
        P->tok = P->tok->next;
    }
    if (equal(P, "(")) {
        error_here(P, "%s", "function pointer declarators are not supported");
        return d;
    }
    if (P->tok->kind != TK_IDENT) {
        error_here(P, "%s", "expected a name in the declaration");
        return d;
    }
    d->tok = P->tok;
    d->name = tok_text(P->tok);
    P->tok = P->tok->next;
    if (ds->matrix) {
        Type *m = lang_alloc(sizeof *m);
        m->kind = TY_MATRIX;
        m->base = ty;
        m->is_vector = ds->vector;
        while (equal(P, "[")) {
            Token *lb = P->tok;
            P->tok = P->tok->next;
            Node *e = assign(P);
            expect(P, "]");
            if (m->ndim == 3) {
                diag_error_tok(lb, "a parac_matrix has at most 3 dimensions");
                continue;
            }
            m->dims[m->ndim++] = e;
        }
        if (m->ndim == 0) error_here(P, "%s", "a parac_matrix declaration needs its sizes, e.g. M[H][W]");
        if (ds->vector && m->ndim > 1) diag_error_tok(d->tok, "a parac_vector has one dimension");
        d->ty = m;
        d->is_typedef = is_ref; /* reused as "is reference" flag on declarators */
        d->cast_ty = m;
    } else {
        for (int suffixes = 0;; suffixes++) {
            if (suffixes == 32) {
                error_here(P, "%s", "too many array or function suffixes");
                return d;
            }
            if (consume(P, "[")) {
                Node *len = equal(P, "]") ? NULL : assign(P);
                expect(P, "]");
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
            } else if (consume(P, "(")) {
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
    if (consume(P, "=")) {
        if (equal(P, "{")) {
            Node *list = new_node(ND_INIT_LIST, P->tok);
            Node head = {0}, *cur = &head;
            init_items(P, &cur, 0);
            list->args = head.next;
            d->init = list;
        } else {
            d->init = assign(P);
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
    while (!consume(P, ")")) {
        if (P->tok->kind == TK_EOF || P->failed) {
            error_here(P, "%s", "unterminated parameter list");
            return head.next;
        }
        if (cur != &head) expect(P, ",");
        if (consume(P, "...")) {
            *variadic = true;
            continue;
        }
        DeclSpec ds = declspec(P);
        Node *d;
        if (equal(P, ",") || equal(P, ")")) {
            d = new_node(ND_DECL, P->tok);
            d->ty = ds.ty;
        } else {
            d = declarator(P, &ds);
        }
        d->kind = ND_PARAM;
        /* array parameters decay to pointers */
        if (d->ty && d->ty->kind == TY_ARRAY) d->ty = pointer_to(d->ty->base);
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
        } while (consume(P, ","));
    }
    n->decls = head.next;
    expect(P, ";");
    return n;
}

/* ---- expressions ------------------------------------------------------------ */
static Node *binary(const char *op, Node *l, Node *r, Token *tok)
{
    Node *n = new_node(ND_BINARY, tok);
    n->op = op;
    n->lhs = l;
    n->rhs = r;
    return n;
}

static bool enter(Parser *P)
{
    if (++P->depth > MAX_DEPTH) {
        error_here(P, "%s", "expression or statement nested too deeply");
        return false;
    }
    return true;
}

static Node *cast_expr(Parser *P);

static Node *primary(Parser *P)
{
    Token *t = P->tok;
    if (consume(P, "(")) {
        Node *e = expr(P);
        expect(P, ")");
        return e;
    }
    if (t->kind == TK_NUM) {
        P->tok = t->next;
        Node *n = new_node(ND_NUM, t);
        return n;
    }
    if (t->kind == TK_STR) {
        P->tok = t->next;
        Node *n = new_node(ND_STR, t);
        /* adjacent string literals */
        while (P->tok->kind == TK_STR) {
            n->text = n->text ? lang_format("%s %.*s", n->text, P->tok->len, P->tok->loc)
                              : lang_format("%.*s %.*s", t->len, t->loc, P->tok->len, P->tok->loc);
            P->tok = P->tok->next;
        }
        return n;
    }
    if (t->kind == TK_CHAR) {
        P->tok = t->next;
        return new_node(ND_CHARLIT, t);
    }
    if (t->kind == TK_IDENT) {
        P->tok = t->next;
        Node *n = new_node(ND_VAR, t);
        n->name = tok_text(t);
        return n;
    }
    if (P->in_rule && equal(P, "*")) { /* border-rule wildcard */
        P->tok = t->next;
        return new_node(ND_WILDCARD, t);
    }
    if (t->kind == TK_EOF)
        error_here(P, "%s", "expected an expression before end of file");
    else if (!P->failed) {
        diag_error_tok(t, "expected an expression before '%.*s'", t->len, t->loc);
        P->failed = true;
    }
    return new_node(ND_NUM, t);
}

static Node *postfix(Parser *P)
{
    Node *n = primary(P);
    for (int count = 0;; count++) {
        if (P->failed) return n;
        if (count == 256) {
            error_here(P, "%s", "too many postfix operators in a row");
            return n;
        }
        Token *t = P->tok;
        if (consume(P, "[")) {
            Node *ix = new_node(ND_INDEX, t);
            ix->lhs = n;
            Node *e;
            if (P->in_rule && equal(P, "*") && tok_is(P->tok->next, "]")) {
                e = new_node(ND_WILDCARD, P->tok);
                P->tok = P->tok->next;
            } else {
                e = expr(P);
            }
            if (equal(P, ":")) {
                Node *s = new_node(ND_SLICE, P->tok);
                P->tok = P->tok->next;
                s->lhs = e;
                s->rhs = assign(P);
                if (consume(P, ":")) s->inc = assign(P);
                e = s;
            }
            ix->rhs = e;
            expect(P, "]");
            n = ix;
        } else if (consume(P, "(")) {
            Node *c = new_node(ND_CALL, n->tok);
            c->lhs = n;
            c->name = n->kind == ND_VAR ? n->name : NULL;
            Node head = {0}, *cur = &head;
            while (!consume(P, ")")) {
                if (cur != &head) expect(P, ",");
                if (P->failed || P->tok->kind == TK_EOF) {
                    error_here(P, "%s", "unterminated argument list");
                    return c;
                }
                cur = cur->next = assign(P);
            }
            c->args = head.next;
            n = c;
        } else if (equal(P, ".") || equal(P, "->")) {
            Node *m = new_node(ND_MEMBER, t);
            m->op = tok_text(t);
            P->tok = t->next;
            m->lhs = n;
            if (P->tok->kind != TK_IDENT) {
                error_here(P, "%s", "expected a member name");
                return m;
            }
            m->name = tok_text(P->tok);
            P->tok = P->tok->next;
            n = m;
        } else if (equal(P, "++") || equal(P, "--")) {
            Node *m = new_node(ND_POSTFIX, t);
            m->op = tok_text(t);
            m->lhs = n;
            P->tok = t->next;
            n = m;
        } else
            return n;
    }
}

static Type *type_name(Parser *P)
{
    DeclSpec ds = declspec(P);
    Type *ty = ds.ty;
    for (int stars = 0; consume(P, "*"); stars++) {
        ty = pointer_to(ty);
        if (stars == 32) {
            error_here(P, "%s", "too many levels of pointers");
            break;
        }
    }
    if (ds.matrix) error_here(P, "%s", "a parac_matrix type cannot be used in a cast");
    return ty;
}

static Node *unary(Parser *P)
{
    Token *t = P->tok;
    if (!enter(P)) return new_node(ND_NUM, t);
    Node *n;
    if (equal(P, "+") || equal(P, "-") || equal(P, "!") || equal(P, "~") || equal(P, "*") ||
        equal(P, "&") || equal(P, "++") || equal(P, "--")) {
        if (P->in_rule && equal(P, "*") && (tok_is(t->next, "]")))
            n = primary(P);
        else {
            P->tok = t->next;
            n = new_node(ND_UNARY, t);
            n->op = tok_text(t);
            n->lhs = cast_expr(P);
        }
    } else if (consume(P, "sizeof")) {
        if (equal(P, "(") && is_type_start(P, P->tok->next)) {
            P->tok = P->tok->next;
            n = new_node(ND_SIZEOF_TYPE, t);
            n->cast_ty = type_name(P);
            expect(P, ")");
        } else {
            n = new_node(ND_SIZEOF_EXPR, t);
            n->lhs = unary(P);
        }
    } else
        n = postfix(P);
    P->depth--;
    return n;
}

static Node *cast_expr(Parser *P)
{
    Token *t = P->tok;
    if (equal(P, "(") && is_type_start(P, t->next)) {
        if (!enter(P)) return new_node(ND_NUM, t);
        P->tok = t->next;
        Node *n = new_node(ND_CAST, t);
        n->cast_ty = type_name(P);
        expect(P, ")");
        if (equal(P, "{")) error_here(P, "%s", "compound literals are not supported");
        n->lhs = cast_expr(P);
        P->depth--;
        return n;
    }
    return unary(P);
}

/* Binary operators by precedence, lowest first. */
static const char *levels[][6] = {
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%", ".*"},
};
enum { NLEVELS = sizeof levels / sizeof *levels };

static Node *binary_level(Parser *P, int level)
{
    if (level == NLEVELS) return cast_expr(P);
    if (!enter(P)) return new_node(ND_NUM, P->tok);
    Node *n = binary_level(P, level + 1);
    for (int count = 0;; count++) {
        if (P->failed) break;
        if (count == 500) { /* the tree gets as deep as the chain is long */
            error_here(P, "%s", "expression too long (more than 500 operators in a row)");
            break;
        }
        const char *op = NULL;
        for (int i = 0; i < 6 && levels[level][i]; i++)
            if (equal(P, levels[level][i])) op = levels[level][i];
        if (!op) break;
        Token *t = P->tok;
        P->tok = t->next;
        Node *r = binary_level(P, level + 1);
        n = binary(op, n, r, t);
        if (!strcmp(op, ".*")) n->kind = ND_EWMUL;
    }
    P->depth--;
    return n;
}

static Node *conditional(Parser *P)
{
    Node *c = binary_level(P, 0);
    Token *t = P->tok;
    if (!consume(P, "?")) return c;
    if (!enter(P)) return c;
    Node *n = new_node(ND_COND, t);
    n->cond = c;
    n->then = expr(P);
    expect(P, ":");
    n->els = conditional(P);
    P->depth--;
    return n;
}

static Node *assign(Parser *P)
{
    if (!enter(P)) return new_node(ND_NUM, P->tok);
    Node *n = conditional(P);
    static const char *ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        if (equal(P, ops[i])) {
            Token *t = P->tok;
            P->tok = t->next;
            Node *a = new_node(ND_ASSIGN, t);
            a->op = ops[i];
            a->lhs = n;
            a->rhs = assign(P);
            n = a;
            break;
        }
    }
    P->depth--;
    return n;
}

static Node *expr(Parser *P)
{
    Node *n = assign(P);
    for (int count = 0; equal(P, ",") && !P->failed; count++) {
        if (count == 500) {
            error_here(P, "%s", "expression too long (more than 500 commas in a row)");
            break;
        }
        Token *t = P->tok;
        P->tok = t->next;
        Node *c = new_node(ND_COMMA, t);
        c->lhs = n;
        c->rhs = assign(P);
        n = c;
    }
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
    if (t->kind == TK_KEYWORD) return is_type_start(P, t);
    if (is_typedef_name(P, t)) {
        Token *n = t->next;
        return n->kind == TK_IDENT || tok_is(n, "*") || tok_is(n, "&") || tok_is(n, "const") ||
               tok_is(n, "parac_matrix") || tok_is(n, "parac_vector");
    }
    /* an unknown name followed by a name: a type from a header */
    if (t->kind == TK_IDENT && t->next->kind == TK_IDENT) return true;
    return false;
}

static Range range(Parser *P, Token **stride_tok, Node **stride)
{
    Range r = {0};
    r.lb = assign(P);
    expect(P, ":");
    r.ub = assign(P);
    r.stride = 1;
    *stride = NULL;
    *stride_tok = P->tok;
    if (consume(P, ":")) *stride = assign(P);
    return r;
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
        error_here(P, "%s", "expected the iterator's name after parac_iterator");
        return n;
    }
    it->name = tok_text(P->tok);
    n->name = it->name;
    P->tok = P->tok->next;
    expect(P, "(");
    if (consume(P, "iter_element")) {
        it->iter_element = true;
        expect(P, ";");
    }
    Node *strides[3] = {0};
    Token *stoks[3] = {0};
    while (!P->failed) {
        if (it->ndim == 3) {
            error_here(P, "%s", "an iterator has at most 3 dimensions");
            break;
        }
        it->r[it->ndim] = range(P, &stoks[it->ndim], &strides[it->ndim]);
        it->ndim++;
        if (!consume(P, ";")) break;
    }
    expect(P, ")");
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
    if (consume(P, "parac_border_rule")) {
        expect(P, "(");
        if (P->tok->kind == TK_IDENT) {
            it->rule_name = new_node(ND_VAR, P->tok);
            it->rule_name->name = tok_text(P->tok);
            P->tok = P->tok->next;
        } else
            error_here(P, "%s", "expected a border rule name");
        expect(P, ")");
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
        error_here(P, "%s", "expected the border rule's name");
        return n;
    }
    n->name = tok_text(P->tok);
    P->tok = P->tok->next;
    expect(P, "{");
    Node head = {0}, *cur = &head;
    P->in_rule = true;
    while (!P->failed && !equal(P, "}") && P->tok->kind != TK_EOF) {
        Node *e = new_node(ND_EXPR_STMT, P->tok);
        e->lhs = expr(P);
        expect(P, ";");
        cur = cur->next = e;
    }
    P->in_rule = false;
    expect(P, "}");
    consume(P, ";");
    n->body = head.next;
    return n;
}

static Node *stmt_inner(Parser *P)
{
    Token *t = P->tok;
    Node *n;
    if (equal(P, "{")) return compound(P);
    if (consume(P, ";")) return new_node(ND_NULL_STMT, t);
    if (equal(P, "parac_iterator")) return iterator_stmt(P);
    if (equal(P, "parac_border_rule")) return border_rule_decl(P);
    if (consume(P, "if")) {
        n = new_node(ND_IF, t);
        expect(P, "(");
        n->cond = expr(P);
        expect(P, ")");
        n->then = stmt(P);
        if (consume(P, "else")) n->els = stmt(P);
        return n;
    }
    if (consume(P, "while")) {
        n = new_node(ND_WHILE, t);
        expect(P, "(");
        n->cond = expr(P);
        expect(P, ")");
        n->body = stmt(P);
        return n;
    }
    if (consume(P, "do")) {
        n = new_node(ND_DO, t);
        n->body = stmt(P);
        expect(P, "while");
        expect(P, "(");
        n->cond = expr(P);
        expect(P, ")");
        expect(P, ";");
        return n;
    }
    if (consume(P, "for")) {
        n = new_node(ND_FOR, t);
        expect(P, "(");
        if (looks_like_decl(P)) {
            Token *s = P->tok;
            DeclSpec ds = declspec(P);
            n->init = declaration(P, &ds, s);
        } else if (!consume(P, ";")) {
            n->init = new_node(ND_EXPR_STMT, P->tok);
            n->init->lhs = expr(P);
            expect(P, ";");
        }
        if (!equal(P, ";")) n->cond = expr(P);
        expect(P, ";");
        if (!equal(P, ")")) n->inc = expr(P);
        expect(P, ")");
        n->body = stmt(P);
        return n;
    }
    if (consume(P, "switch")) {
        n = new_node(ND_SWITCH, t);
        expect(P, "(");
        n->cond = expr(P);
        expect(P, ")");
        n->body = stmt(P);
        return n;
    }
    if (consume(P, "case")) {
        n = new_node(ND_CASE, t);
        n->lhs = conditional(P);
        expect(P, ":");
        return n;
    }
    if (consume(P, "default")) {
        n = new_node(ND_DEFAULT, t);
        expect(P, ":");
        return n;
    }
    if (consume(P, "return")) {
        n = new_node(ND_RETURN, t);
        if (!equal(P, ";")) n->lhs = expr(P);
        expect(P, ";");
        return n;
    }
    if (consume(P, "break")) {
        expect(P, ";");
        return new_node(ND_BREAK, t);
    }
    if (consume(P, "continue")) {
        expect(P, ";");
        return new_node(ND_CONTINUE, t);
    }
    if (consume(P, "goto")) {
        n = new_node(ND_GOTO, t);
        if (P->tok->kind == TK_IDENT) {
            n->name = tok_text(P->tok);
            P->tok = P->tok->next;
        } else
            error_here(P, "%s", "expected a label after goto");
        expect(P, ";");
        return n;
    }
    if (t->kind == TK_IDENT && tok_is(t->next, ":")) {
        n = new_node(ND_LABEL, t);
        n->name = tok_text(t);
        P->tok = t->next->next;
        return n;
    }
    if (t->kind == TK_DIRECTIVE) {
        error_here(P, "%s", "preprocessor directives are only supported outside functions");
        P->tok = t->next;
        return new_node(ND_NULL_STMT, t);
    }
    if (looks_like_decl(P)) {
        DeclSpec ds = declspec(P);
        return declaration(P, &ds, t);
    }
    n = new_node(ND_EXPR_STMT, t);
    n->lhs = expr(P);
    if (equal(P, "parac_border_rule")) {
        n->rule_tok = P->tok;
        P->tok = P->tok->next;
        expect(P, "(");
        if (P->tok->kind == TK_IDENT) {
            n->whole_rule_name = new_node(ND_VAR, P->tok);
            n->whole_rule_name->name = tok_text(P->tok);
            P->tok = P->tok->next;
        } else
            error_here(P, "%s", "expected a border rule name");
        expect(P, ")");
    }
    expect(P, ";");
    return n;
}

static Node *stmt(Parser *P)
{
    if (!enter(P)) {
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
    expect(P, "{");
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
    consume(P, "}");
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
    if (consume(P, ";")) return NULL;
    if (equal(P, "parac_border_rule")) return border_rule_decl(P);
    if (equal(P, "parac_iterator")) {
        error_here(P, "%s", "parac_iterator must be inside a function");
        return NULL;
    }
    if (!is_type_start(P, start) && !(start->kind == TK_IDENT && start->next->kind == TK_IDENT)) {
        if (start->kind == TK_IDENT && tok_is(start->next, "("))
            error_here(P, "%s", "function definitions need a return type (no implicit int)");
        else
            error_here(P, "%s", "expected a declaration or a function definition");
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
    DeclSpec ds = declspec(P);
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
    while (consume(P, ",")) {
        Node *x = declarator(P, &ds);
        if (P->failed) break;
        if (ds.is_typedef && x->name) add_typedef(P, x->name);
        cur = cur->next = x;
    }
    expect(P, ";");
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
