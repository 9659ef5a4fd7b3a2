/* Macros that name matrices, expanded in the token stream before parsing.
 *
 * Directives reach the generated code verbatim (tokenize.c) and the C (or
 * OpenCL) preprocessor expands macros there, after paracc has turned each
 * matrix into a pointer with a pitch, a kernel argument or a device buffer.
 * That is right for a macro of values (CLAMP(in[x][y], 0, 255): its
 * argument is an element the parser translates) and wrong for one that
 * names a matrix itself: in its body (#define AT(r, c) img[r][c]) or as an
 * argument (SUM5(img, r, c), a bare matrix name). Those uses are expanded
 * here, as C's preprocessor would: the arguments replace the parameters,
 * the result is scanned again for such macros (the macro itself not
 * expanded inside its own expansion), and the parser sees the code written
 * out. Other macros and uses stay as they are.
 *
 * Matrices are known by name only here (before scopes): every identifier
 * declared with parac_matrix or parac_vector. Expanding a use that names
 * one of them where the name means something else still computes what C's
 * preprocessor would. A macro that needs this expansion and uses # or ##,
 * or is defined under #if (which paracc does not evaluate), is an error at
 * the use. The body's tokens carry the place of the macro's name at the
 * use, the arguments' their own, so messages point there. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang.h"

enum { MAX_NAMES = 512, MAX_DEFS = 512, MAX_PARAMS = 32, MAX_ARGS = 32, MAX_DEPTH = 32 };

typedef struct Def {
    char name[64];
    bool fn;         /* function-like */
    bool variadic;   /* ... among the parameters */
    bool hashes;     /* # or ## in the body, or characters that are not C's (then no tokens) */
    bool conditional; /* defined under #if / #ifdef / #ifndef */
    bool live;       /* not #undef'd since */
    bool busy;       /* being expanded: not again inside its own expansion */
    int nparams;
    char params[MAX_PARAMS][64];
    Token *body;     /* its tokens, to the TK_EOF (none when `hashes`) */
    const char *text; /* the body as written */
    bool names_matrix; /* its body names a matrix itself */
} Def;

typedef struct Expander {
    const char *names[MAX_NAMES]; /* the matrices' names */
    int nnames;
    Def defs[MAX_DEFS];
    int ndefs;
    int cond; /* the depth of #if / #ifdef / #ifndef at this point of the file */
} Expander;

static Expander *E; /* during lang_expand_matrix_macros only */

static bool is_punct(const Token *t, const char *s) { return t && t->kind == TK_PUNCT && tok_is(t, s); }

static bool tok_named(const Token *t, const char *name)
{
    return t && t->kind == TK_IDENT && (size_t)t->len == strlen(name) && !strncmp(t->loc, name, (size_t)t->len);
}

static bool names_matrix(const Token *t)
{
    if (!t || t->kind != TK_IDENT) return false;
    for (int i = 0; i < E->nnames; i++)
        if (tok_named(t, E->names[i])) return true;
    return false;
}

static void add_name(const Token *t)
{
    if (E->nnames < MAX_NAMES && !names_matrix(t)) E->names[E->nnames++] = tok_text(t);
}

/* The names declared with parac_matrix / parac_vector: the first
 * declarator's, and those after commas of the same declaration (a name
 * followed by its sizes). */
static void collect_names(const Token *t)
{
    for (; t && t->kind != TK_EOF; t = t->next) {
        if (!(t->kind == TK_KEYWORD && (tok_is(t, "parac_matrix") || tok_is(t, "parac_vector") ||
                                        tok_is(t, "parac_pyramid"))))
            continue;
        const Token *d = t->next;
        for (;;) {
            while (is_punct(d, "&") || is_punct(d, "*")) d = d->next;
            if (!d || d->kind != TK_IDENT) break;
            add_name(d);
            int depth = 0; /* past the sizes and an initialiser, to the next declarator */
            for (d = d->next; d && d->kind != TK_EOF; d = d->next) {
                if (is_punct(d, "[") || is_punct(d, "(") || is_punct(d, "{")) depth++;
                else if (is_punct(d, "]") || is_punct(d, ")") || is_punct(d, "}")) {
                    if (--depth < 0) break;
                } else if (depth == 0 && (is_punct(d, ",") || is_punct(d, ";"))) break;
            }
            if (!is_punct(d, ",")) break;
            d = d->next;
            const Token *n = d;
            while (is_punct(n, "&") || is_punct(n, "*")) n = n->next;
            if (!n || n->kind != TK_IDENT || !is_punct(n->next, "[")) break; /* a parameter of another type */
        }
    }
}

static bool is_param(const Def *d, const char *w, size_t n)
{
    for (int i = 0; i < d->nparams; i++)
        if (strlen(d->params[i]) == n && !strncmp(d->params[i], w, n)) return true;
    return false;
}

/* The live macro named by the n characters at w. */
static Def *find_def_text(const char *w, size_t n)
{
    for (int i = E->ndefs - 1; i >= 0; i--)
        if (E->defs[i].live && strlen(E->defs[i].name) == n && !strncmp(E->defs[i].name, w, n)) return &E->defs[i];
    return NULL;
}

static Def *find_def(const Token *t)
{
    return t && t->kind == TK_IDENT ? find_def_text(t->loc, (size_t)t->len) : NULL;
}

/* The next identifier-like word of a body's text from *q (its length in
 * *n), *q moved past it; NULL at the end. */
static const char *next_word(const char **q, size_t *n)
{
    const char *p = *q;
    /* comments and numbers hold no names (a comment's "APPLY(AT" or the x1F of 0x1F) */
    while (*p && !(isalpha((unsigned char)*p) || *p == '_')) {
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else if (p[0] == '/' && p[1] == '/') {
            p += strcspn(p, "\n");
        } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            while (isalnum((unsigned char)*p) || *p == '_' || *p == '.') p++;
        } else {
            p++;
        }
    }
    if (!*p) return NULL;
    const char *w = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    *n = (size_t)(p - w);
    *q = p;
    return w;
}

/* A directive: #define and #undef change the table; #if and its kin count
 * the conditional depth. */
static void directive(const Token *t, int *cond)
{
    const char *p = t->loc + 1, *end = t->loc + t->len;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    const char *w = p;
    while (p < end && isalpha((unsigned char)*p)) p++;
    const size_t wl = (size_t)(p - w);
    if ((wl == 2 && !strncmp(w, "if", 2)) || (wl == 5 && !strncmp(w, "ifdef", 5)) || (wl == 6 && !strncmp(w, "ifndef", 6))) {
        (*cond)++;
        return;
    }
    if (wl == 5 && !strncmp(w, "endif", 5)) {
        if (*cond > 0) (*cond)--;
        return;
    }
    const bool def = wl == 6 && !strncmp(w, "define", 6), undef = wl == 5 && !strncmp(w, "undef", 5);
    if (!def && !undef) return;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    const char *n = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_')) p++;
    if (p == n || p - n >= 64) return;
    for (int i = 0; i < E->ndefs; i++)
        if (strlen(E->defs[i].name) == (size_t)(p - n) && !strncmp(E->defs[i].name, n, (size_t)(p - n)))
            E->defs[i].live = false;
    if (undef || E->ndefs == MAX_DEFS) return;
    Def *d = &E->defs[E->ndefs++];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%.*s", (int)(p - n), n);
    d->live = true;
    d->conditional = *cond > 0;
    if (p < end && *p == '(') { /* function-like: the parenthesis right after the name */
        d->fn = true;
        for (p++; p < end && *p != ')';) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == ',' || *p == '\\' || *p == '\n')) p++;
            const char *b = p;
            while (p < end && (isalnum((unsigned char)*p) || *p == '_')) p++;
            if (p > b && d->nparams < MAX_PARAMS) snprintf(d->params[d->nparams++], 64, "%.*s", (int)(p - b), b);
            else if (p < end && *p == '.') {
                d->variadic = true;
                while (p < end && *p == '.') p++;
            } else if (p == b && p < end && *p != ')')
                p++;
        }
        if (p < end) p++;
    }
    /* the body, tokenized as a file of its own (line splices become spaces);
       one with characters of the preprocessor's own (# and ##) or none of
       C's is not, so that no message comes from a macro nobody expands */
    const size_t len = (size_t)(end - p);
    char *text = lang_alloc(len + 1);
    for (size_t i = 0; i < len; i++) {
        text[i] = (p[i] == '\\' && i + 1 < len && p[i + 1] == '\n') ? ' ' : p[i];
        const unsigned char c = (unsigned char)text[i];
        if (!(isalnum(c) || isspace(c) || strchr("_+-*/%<>=!&|^~?:;,.()[]{}\"'", c))) d->hashes = true;
    }
    if (d->hashes) { /* its words, for whether it names a matrix */
        const char *q = text, *b;
        size_t nw;
        while ((b = next_word(&q, &nw))) {
            bool matrix = false;
            for (int i = 0; i < E->nnames; i++) matrix |= strlen(E->names[i]) == nw && !strncmp(E->names[i], b, nw);
            d->names_matrix |= matrix && !is_param(d, b, nw);
        }
        d->text = text;
        return;
    }
    SourceFile *f = lang_alloc(sizeof *f);
    f->name = t->file ? t->file->name : d->name;
    f->text = text;
    f->len = len;
    d->body = tokenize(f);
    d->text = text;
    for (const Token *b = d->body; b && b->kind != TK_EOF; b = b->next) {
        /* (a body that starts with # comes back as a directive line) */
        if (b->kind == TK_DIRECTIVE || (b->kind == TK_PUNCT && (tok_is(b, "#") || tok_is(b, "##")))) d->hashes = true;
        if (names_matrix(b)) d->names_matrix |= !is_param(d, b->loc, (size_t)b->len);
    }
}

/* Whether a use of d names a matrix: its body names one itself, or names a
 * macro that does (C expands the body's macros at the use, with the
 * definitions live there: `#define CENTRE(r, c) AT(r, c)` is such a macro
 * when AT's body names a matrix, whichever of the two is defined first). The body's
 * words are read from its text, which macros with # or ## also have. */
static bool def_names_matrix(Def *d, int depth)
{
    if (d->names_matrix) return true;
    if (d->busy || depth >= MAX_DEPTH || !d->text) return false;
    bool found = false;
    d->busy = true;
    const char *q = d->text, *w;
    size_t n;
    while (!found && (w = next_word(&q, &n))) {
        Def *m = is_param(d, w, n) ? NULL : find_def_text(w, n);
        if (m && m != d) found = def_names_matrix(m, depth + 1);
    }
    d->busy = false;
    return found;
}

/* A copy of t placed at `at` (the use's macro name). */
static Token *copy_at(const Token *t, const Token *at)
{
    Token *c = lang_alloc(sizeof *c);
    *c = *t;
    c->next = NULL;
    c->line = at->line;
    c->col = at->col;
    c->file = at->file;
    return c;
}

static Token *expand_list(Token *head, int depth);

/* The use of macro d at `name` (for a function-like one, its arguments,
 * each a list of tokens already expanded): its expansion, scanned
 * again, ending with a pointer to its last token in *last; NULL if it is
 * not to be expanded here. */
static Token *expand_use(Def *d, Token *name, Token *args[][2], int nargs, int depth, Token **last)
{
    bool bare = false; /* a matrix passed itself, not one of its elements, or a macro that names one
                          (SUM3X3(XX): the body calls XX once the argument is in place) */
    for (int a = 0; a < nargs; a++)
        for (Token *t = args[a][0]; t && t != args[a][1]; t = t->next) {
            if (names_matrix(t) && !is_punct(t->next, "[")) bare = true;
            Def *m = t->kind == TK_IDENT ? find_def(t) : NULL;
            if (m && m != d && def_names_matrix(m, 0)) bare = true;
        }
    const bool body = def_names_matrix(d, 0);
    if (!body && !bare) return NULL;
    if (d->hashes || d->variadic || d->conditional || depth >= MAX_DEPTH) {
        diag_error_tok(name, "macro '%s' names a matrix %s, and paracc writes such a use out itself (the generated "
                       "code holds no matrix of that name), but not %s: write the code out", d->name,
                       body ? "in its body" : "through an argument",
                       d->hashes ? "with # or ## in the body" : d->variadic ? "with variable arguments"
                       : d->conditional ? "for a macro defined under #if" : "so many macros deep");
        return NULL;
    }
    if (d->fn && nargs != d->nparams && !(nargs == 1 && d->nparams == 0 && !args[0][0])) {
        diag_error_tok(name, "macro '%s' takes %d arguments, %d given", d->name, d->nparams, nargs);
        return NULL;
    }
    Token head = {0}, *cur = &head;
    for (const Token *b = d->body; b && b->kind != TK_EOF; b = b->next) {
        int param = -1;
        for (int i = 0; i < d->nparams && param < 0; i++)
            if (b->kind == TK_IDENT && tok_named(b, d->params[i])) param = i;
        if (param < 0) {
            cur = cur->next = copy_at(b, name);
            continue;
        }
        /* an argument's tokens keep their own places */
        for (Token *t = args[param][0]; t && t != args[param][1]; t = t->next) cur = cur->next = copy_at(t, t);
    }
    d->busy = true;
    Token *out = expand_list(head.next, depth + 1);
    d->busy = false;
    Token *l = out;
    while (l && l->next) l = l->next;
    *last = l;
    return out;
}

/* Expands the uses in the list `head` (ending at NULL or TK_EOF), directives
 * updating the table as they come; returns the new head. */
static Token *expand_list(Token *head, int depth)
{
    Token start = {0};
    start.next = head;
    Token *prev = &start;
    for (Token *t = head; t && t->kind != TK_EOF;) {
        if (t->kind == TK_DIRECTIVE) {
            if (depth == 0) directive(t, &E->cond);
            prev = t;
            t = t->next;
            continue;
        }
        Def *d = find_def(t);
        if (!d || d->busy) {
            prev = t;
            t = t->next;
            continue;
        }
        Token *args[MAX_ARGS][2];
        int nargs = 0;
        Token *after = t->next;
        if (d->fn) {
            if (!is_punct(t->next, "(")) { /* the name alone: no invocation */
                prev = t;
                t = t->next;
                continue;
            }
            int level = 0;
            Token *a = t->next->next, *u = a;
            bool closed = false;
            for (; u && u->kind != TK_EOF && u->kind != TK_DIRECTIVE; u = u->next) {
                if (is_punct(u, "(") || is_punct(u, "[") || is_punct(u, "{")) level++;
                else if (level > 0 && (is_punct(u, ")") || is_punct(u, "]") || is_punct(u, "}"))) level--;
                else if (level == 0 && (is_punct(u, ",") || is_punct(u, ")"))) {
                    if (nargs < MAX_ARGS) args[nargs][0] = a, args[nargs][1] = u, nargs++;
                    a = u->next;
                    if (is_punct(u, ")")) {
                        closed = true;
                        break;
                    }
                }
            }
            if (!closed || nargs == MAX_ARGS) { /* unbalanced: the parser says so */
                prev = t;
                t = t->next;
                continue;
            }
            after = u->next;
        }
        /* the arguments as C's preprocessor substitutes them: with their own
           macros that name matrices expanded (copies: the use may stay) */
        for (int a = 0; a < nargs; a++) {
            Token copy = {0}, *c = &copy;
            for (Token *u = args[a][0]; u && u != args[a][1]; u = u->next) c = c->next = copy_at(u, u);
            args[a][0] = copy.next ? expand_list(copy.next, depth + 1) : NULL;
            args[a][1] = NULL;
        }
        Token *last = NULL;
        Token *out = expand_use(d, t, args, nargs, depth, &last);
        if (!out) {
            prev = t;
            t = t->next;
            continue;
        }
        prev->next = out;
        last->next = after;
        prev = last;
        t = after;
    }
    return start.next;
}

Token *lang_expand_matrix_macros(Token *toks, const char ***names, int *n)
{
    E = lang_alloc(sizeof *E);
    collect_names(toks);
    bool any = false;
    for (const Token *t = toks; t && t->kind != TK_EOF && !any; t = t->next) any = t->kind == TK_DIRECTIVE;
    Token *out = any && E->nnames ? expand_list(toks, 0) : toks;
    *names = E->names;
    *n = E->nnames;
    E = NULL;
    return out;
}
