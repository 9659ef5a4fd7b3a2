/* The parser's expressions: precedence climbing over C's binary operators,
 * unary and postfix forms, and ParaC's slices, windows and .* (parse.c is the
 * pass). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"

/* A C constant: the tokenizer takes any preprocessing number (1f, 09, 0x),
 * which the C compiler would refuse in the generated file. */
static bool valid_number(const char *s, int len)
{
    char text[128];
    if (len <= 0 || len >= (int)sizeof text) return len > 0;
    memcpy(text, s, (size_t)len);
    text[len] = 0;
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    bool floating = strchr(text, '.') || (hex ? strpbrk(text, "pP") != NULL : strpbrk(text, "eE") != NULL);
    char *end;
    if (floating) {
        strtod(text, &end);
        return end > text && (!*end || (!end[1] && strchr("fFlL", *end)));
    }
    if (text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) { /* C23 binary */
        end = text + 2;
        while (*end == '0' || *end == '1') end++;
        if (end == text + 2) return false;
    } else {
        strtoull(text, &end, 0);
        if (end == text || (hex && end == text + 2)) return false;
    }
    int u = 0, l = 0;
    for (; *end; end++) {
        if ((*end == 'u' || *end == 'U') && !u) u = 1;
        else if ((*end == 'l' || *end == 'L') && !l) {
            l = 1;
            if (end[1] == *end) end++; /* ll, LL */
        } else
            return false;
    }
    return true;
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

bool parse_enter(Parser *P)
{
    if (++P->depth > MAX_DEPTH) {
        parse_error_here(P, "%s", "expression or statement nested too deeply");
        return false;
    }
    return true;
}

static Node *cast_expr(Parser *P);

static Node *primary(Parser *P)
{
    Token *t = P->tok;
    if (parse_consume(P, "(")) {
        Node *e = parse_expr(P);
        parse_expect(P, ")");
        return e;
    }
    if (t->kind == TK_NUM) {
        P->tok = t->next;
        if (!valid_number(t->loc, t->len)) diag_error_tok(t, "'%.*s' is not a C number", t->len, t->loc);
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
        parse_error_here(P, "%s", "expected an expression before end of file");
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
            parse_error_here(P, "%s", "too many postfix operators in a row");
            return n;
        }
        Token *t = P->tok;
        if (parse_consume(P, "[")) {
            Node *ix = new_node(ND_INDEX, t);
            ix->lhs = n;
            Node *e;
            if (P->in_rule && equal(P, "*") && tok_is(P->tok->next, "]")) {
                e = new_node(ND_WILDCARD, P->tok);
                P->tok = P->tok->next;
            } else {
                e = parse_expr(P);
            }
            if (equal(P, ":")) {
                Node *s = new_node(ND_SLICE, P->tok);
                P->tok = P->tok->next;
                s->lhs = e;
                s->rhs = parse_assign(P);
                if (parse_consume(P, ":")) s->inc = parse_assign(P);
                e = s;
            }
            ix->rhs = e;
            parse_expect(P, "]");
            n = ix;
        } else if (parse_consume(P, "(")) {
            Node *c = new_node(ND_CALL, n->tok);
            c->lhs = n;
            c->name = n->kind == ND_VAR ? n->name : NULL;
            Node head = {0}, *cur = &head;
            while (!parse_consume(P, ")")) {
                if (cur != &head) parse_expect(P, ",");
                if (P->failed || P->tok->kind == TK_EOF) {
                    parse_error_here(P, "%s", "unterminated argument list");
                    return c;
                }
                cur = cur->next = parse_assign(P);
            }
            c->args = head.next;
            n = c;
        } else if (equal(P, ".") || equal(P, "->")) {
            Node *m = new_node(ND_MEMBER, t);
            m->op = tok_text(t);
            P->tok = t->next;
            m->lhs = n;
            if (P->tok->kind != TK_IDENT) {
                parse_error_here(P, "%s", "expected a member name");
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
    DeclSpec ds = parse_declspec(P);
    Type *ty = ds.ty;
    for (int stars = 0; parse_consume(P, "*"); stars++) {
        ty = parse_pointer_to(ty);
        if (stars == 32) {
            parse_error_here(P, "%s", "too many levels of pointers");
            break;
        }
    }
    if (ds.matrix) parse_error_here(P, "%s", "a parac_matrix type cannot be used in a cast");
    return ty;
}

static Node *unary(Parser *P)
{
    Token *t = P->tok;
    if (!parse_enter(P)) return new_node(ND_NUM, t);
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
    } else if (parse_consume(P, "sizeof")) {
        if (equal(P, "(") && parse_is_type_start(P, P->tok->next)) {
            P->tok = P->tok->next;
            n = new_node(ND_SIZEOF_TYPE, t);
            n->cast_ty = type_name(P);
            parse_expect(P, ")");
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
    if (equal(P, "(") && parse_is_type_start(P, t->next)) {
        if (!parse_enter(P)) return new_node(ND_NUM, t);
        P->tok = t->next;
        Node *n = new_node(ND_CAST, t);
        n->cast_ty = type_name(P);
        parse_expect(P, ")");
        if (equal(P, "{")) parse_error_here(P, "%s", "compound literals are not supported");
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
    if (!parse_enter(P)) return new_node(ND_NUM, P->tok);
    Node *n = binary_level(P, level + 1);
    for (int count = 0;; count++) {
        if (P->failed) break;
        if (count == 500) { /* the tree gets as deep as the chain is long */
            parse_error_here(P, "%s", "expression too long (more than 500 operators in a row)");
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

Node *parse_conditional(Parser *P)
{
    Node *c = binary_level(P, 0);
    Token *t = P->tok;
    if (!parse_consume(P, "?")) return c;
    if (!parse_enter(P)) return c;
    Node *n = new_node(ND_COND, t);
    n->cond = c;
    n->then = parse_expr(P);
    parse_expect(P, ":");
    n->els = parse_conditional(P);
    P->depth--;
    return n;
}

Node *parse_assign(Parser *P)
{
    if (!parse_enter(P)) return new_node(ND_NUM, P->tok);
    Node *n = parse_conditional(P);
    static const char *ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        if (equal(P, ops[i])) {
            Token *t = P->tok;
            P->tok = t->next;
            Node *a = new_node(ND_ASSIGN, t);
            a->op = ops[i];
            a->lhs = n;
            a->rhs = parse_assign(P);
            n = a;
            break;
        }
    }
    P->depth--;
    return n;
}

Node *parse_expr(Parser *P)
{
    Node *n = parse_assign(P);
    for (int count = 0; equal(P, ",") && !P->failed; count++) {
        if (count == 500) {
            parse_error_here(P, "%s", "expression too long (more than 500 commas in a row)");
            break;
        }
        Token *t = P->tok;
        P->tok = t->next;
        Node *c = new_node(ND_COMMA, t);
        c->lhs = n;
        c->rhs = parse_assign(P);
        n = c;
    }
    return n;
}
