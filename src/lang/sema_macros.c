/* Macros reach the generated C and kernels unexpanded (tokenize.c), where a
 * matrix is no longer the array the source indexes: a pointer with a pitch,
 * a kernel argument, a device buffer. macros.c expands the uses of macros
 * that name matrices before parsing; a macro whose body names a matrix that
 * it did not know as one (its uses left as they were) would be accepted
 * here and fail in the C compiler, or index the wrong elements, so it is an
 * error at the #define, after sema has seen every matrix of the file.
 *
 * Where the compiler needs a constant (a window's length and stride, a
 * border width), an object-like macro whose body is an integer constant
 * expression (`#define PATCH 7`, `#define R (PATCH / 2)`) has its value:
 * the body is parsed as an expression and evaluated as C's preprocessor
 * would (lang_macro_value); so has a constant of a file-scope enumeration
 * (`enum { BINS = 256 };`), as C gives it. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang.h"
#include "lang/parse.h"

enum { MAX_MATRICES = 256, MAX_PARAMS = 32 };

typedef struct Names {
    const Obj *m[MAX_MATRICES];
    int n;
} Names;

static void add_matrix(Names *s, const Obj *o)
{
    for (int i = 0; i < s->n; i++)
        if (s->m[i] == o) return;
    if (s->n < MAX_MATRICES) s->m[s->n++] = o;
}

static void collect_matrices(Names *s, Node *n)
{
    if (!n) return;
    if ((n->kind == ND_VAR || n->kind == ND_MAT_ELEM || n->kind == ND_WINDOW) && n->var && n->var->ty &&
        n->var->ty->kind == TY_MATRIX)
        add_matrix(s, n->var);
    if (n->kind == ND_DECL)
        for (Node *d = n->decls; d; d = d->next)
            if (d->var && d->var->ty && d->var->ty->kind == TY_MATRIX) add_matrix(s, d->var);
    if (n->kind == ND_FUNC && n->ty)
        for (Node *p = n->ty->params; p; p = p->next)
            if (p->var && p->var->ty && p->var->ty->kind == TY_MATRIX) add_matrix(s, p->var);
    Node *c;
    for (NodeKids k = {.n = n}; (c = lang_next_kid(&k));) collect_matrices(s, c);
}

/* The identifier at p (len bytes) is one of the macro's parameters. */
static bool is_param(const char *p, size_t len, const char params[][64], int nparams)
{
    for (int i = 0; i < nparams; i++)
        if (strlen(params[i]) == len && !strncmp(params[i], p, len)) return true;
    return false;
}

/* The matrix whose name the body of `#define NAME(PARAMS) BODY` uses, or NULL. */
static const Obj *matrix_in_define(const char *text, const Names *s)
{
    const char *p = text + 1; /* past '#' */
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "define", 6) != 0) return NULL;
    p += 6;
    while (*p == ' ' || *p == '\t') p++;
    while (isalnum((unsigned char)*p) || *p == '_') p++; /* the macro's name */
    char params[MAX_PARAMS][64];
    int nparams = 0;
    if (*p == '(') { /* a function-like macro: its parameters are not the file's names */
        for (p++; *p && *p != ')';) {
            const char *b = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            if (p > b && nparams < MAX_PARAMS) snprintf(params[nparams++], 64, "%.*s", (int)(p - b), b);
            if (p == b) p++;
        }
        if (*p == ')') p++;
    }
    while (*p) {
        if (p[0] == '/' && p[1] == '*') { /* a comment: words in it name nothing */
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
            continue;
        }
        if (p[0] == '/' && p[1] == '/') break;
        if (isdigit((unsigned char)*p)) { /* a number, 0x1F or 1e5f: no name in it */
            while (isalnum((unsigned char)*p) || *p == '_' || *p == '.') p++;
            continue;
        }
        if (*p == '"' || *p == '\'') { /* a string or character: no names in it */
            char q = *p++;
            while (*p && *p != q) p += (*p == '\\' && p[1]) ? 2 : 1;
            if (*p) p++;
            continue;
        }
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *b = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            size_t len = (size_t)(p - b);
            if (is_param(b, len, params, nparams)) continue;
            for (int i = 0; i < s->n; i++)
                if (strlen(s->m[i]->name) == len && !strncmp(s->m[i]->name, b, len)) return s->m[i];
            continue;
        }
        p++;
    }
    return NULL;
}

void sema_check_macros(Program *prog)
{
    Names *s = lang_alloc(sizeof *s);
    for (Node *n = prog->top; n; n = n->next)
        if (n->kind != ND_DIRECTIVE) collect_matrices(s, n);
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind != ND_DIRECTIVE || !n->text) continue;
        const Obj *m = matrix_in_define(n->text, s);
        bool expanded = false; /* macros.c expanded the uses of macros that name it */
        for (int i = 0; m && i < prog->nmacro_matrices && !expanded; i++) expanded = !strcmp(prog->macro_matrices[i], m->name);
        if (m && !expanded)
            diag_error_tok(n->tok, "this macro names parac_matrix '%s': macros reach the generated code unexpanded, "
                           "where '%s' is not the array the source indexes; write the access in the code or in a "
                           "function of the file", m->name, m->name);
    }
}

/* ---- integer macros -------------------------------------------------------- */

enum { MAX_MACROS = 512, MACRO_DEPTH = 16, MAX_MACRO_PARAMS = 8 };

typedef struct Macro {
    char name[64];
    const char *body; /* the text after the name, to the line's end */
    int state;        /* 0 not evaluated, 1 evaluating, 2 constant, 3 not a constant */
    long value;
} Macro;

static Macro macros[MAX_MACROS];
static int nmacros;
/* lang_macro_value's nesting; a compile left by out of memory may leave it raised */
static int macro_depth;

/* Function-like macros whose body only computes (lang_pure_call). */
typedef struct FnMacro {
    char name[64];
    bool pure; /* no assignment, ++ or --, and no call but of a pure math function */
    int defs;  /* how often it is defined */
    const char *text; /* from the parameter list's '(' to the line's end */
    int parsed;       /* lang_macro_body: 0 not yet, 1 body and params, 2 none */
    Node *body;
    const char *params[MAX_MACRO_PARAMS];
    int nparams;
} FnMacro;
static FnMacro fn_macros[MAX_MACROS];
static int nfn_macros;

static const char *const pure_math[] = {
    "expf", "exp", "exp2f", "logf", "log", "log2f", "sqrtf", "sqrt", "rsqrtf", "fabsf", "fabs", "fminf", "fmaxf",
    "fmin", "fmax", "floorf", "floor", "ceilf", "ceil", "roundf", "round", "truncf", "powf", "pow", "sinf", "cosf",
    "tanf", "atan2f", "atanf", "tanhf", "abs", "min", "max", NULL};

static bool pure_math_name(const char *s, size_t n)
{
    for (int i = 0; pure_math[i]; i++)
        if (strlen(pure_math[i]) == n && !strncmp(pure_math[i], s, n)) return true;
    return false;
}

/* The body of a function-like macro (after its parameter list) only computes. */
static bool pure_body(const char *b)
{
    for (const char *p = b; *p; p++) {
        if ((p[0] == '+' && p[1] == '+') || (p[0] == '-' && p[1] == '-')) return false;
        if (*p == '=' && p[1] != '=' && (p == b || !strchr("=<>!", p[-1]))) return false;
        if (*p == '"' || *p == '\'' || *p == ';' || *p == '{' || *p == '#') return false;
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p;
            while (isalnum((unsigned char)p[1]) || p[1] == '_') p++;
            const char *q = p + 1;
            while (*q == ' ' || *q == '\t') q++;
            if (*q == '(' && !pure_math_name(w, (size_t)(p + 1 - w))) return false;
        }
    }
    return true;
}

bool lang_pure_call(const char *name)
{
    if (!name) return false;
    if (pure_math_name(name, strlen(name))) return true;
    for (int i = 0; i < nfn_macros; i++)
        if (!strcmp(fn_macros[i].name, name)) return fn_macros[i].pure && fn_macros[i].defs == 1;
    return false;
}

/* Whether a body may be an integer constant expression: numbers, names,
 * operators and parentheses only (no strings, braces, ';', '#'). Others are
 * not parsed at all, so that no diagnostic comes from a macro's body. */
static bool looks_constant(const char *b)
{
    int depth = 0, any = 0;
    for (const char *p = b; *p; p++) {
        if (p[0] == '/' && (p[1] == '*' || p[1] == '/')) return false;
        if (isalnum((unsigned char)*p) || *p == '_') {
            any = 1;
            continue;
        }
        if (*p == '(') depth++;
        else if (*p == ')') {
            if (--depth < 0) return false;
        } else if (!strchr(" \t+-*/%<>=!&|^~?:", *p)) {
            return false;
        }
    }
    return any && depth == 0;
}

/* A macro's body with its comments blanked (a copy in the arena). */
static const char *without_comments(const char *body)
{
    const size_t n = strlen(body);
    char *t = lang_alloc(n + 1);
    memcpy(t, body, n);
    for (char *p = t; *p; p++) {
        if (p[0] == '/' && p[1] == '/') {
            *p = '\0';
            break;
        }
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *stop = e ? e + 2 : p + strlen(p);
            memset(p, ' ', (size_t)(stop - p));
            p = stop - 1;
        }
    }
    return t;
}

/* A copy of text[0..n) with its comments blanked. */
static char *blank_comments(const char *text, size_t n)
{
    char *t = lang_alloc(n + 1);
    memcpy(t, text, n);
    for (char *p = t; *p; p++) {
        if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
            char *e = p[1] == '/' ? strchr(p, '\n') : strstr(p + 2, "*/");
            char *stop = !e ? p + strlen(p) : p[1] == '/' ? e : e + 2;
            memset(p, ' ', (size_t)(stop - p));
            p = stop - 1;
        }
    }
    return t;
}

/* The constants of a file-scope enumeration (`enum { H = 1003, BINS = 256 };`)
 * as macros of their values, so that sizes written with them are constants
 * as C's are: `NAME = expr` has expr, a NAME without one the one before plus
 * 1 (the first 0). */
static void collect_enumerators(const char *text)
{
    const char *open = strchr(text, '{'), *close = open ? strchr(open, '}') : NULL;
    if (!close) return;
    char *body = blank_comments(open + 1, (size_t)(close - open - 1));
    const char *prev = NULL;
    for (char *p = body; *p;) {
        while (isspace((unsigned char)*p)) p++;
        const char *b = p;
        while (isalnum((unsigned char)*p) || *p == '_') p++;
        if (p == b || p - b >= 64 || nmacros == MAX_MACROS) return;
        Macro *m = &macros[nmacros++];
        snprintf(m->name, sizeof m->name, "%.*s", (int)(p - b), b);
        while (isspace((unsigned char)*p)) p++;
        if (*p == '=') {
            char *e = ++p;
            int depth = 0;
            while (*p && !(*p == ',' && depth == 0)) {
                depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
                p++;
            }
            m->body = lang_strndup(e, (size_t)(p - e));
        } else {
            m->body = prev ? lang_format("(%s) + 1", prev) : "0";
        }
        m->state = looks_constant(m->body) ? 0 : 3;
        prev = m->name;
        if (*p == ',') p++;
        else if (*p) {
            m->state = 3; /* not an enumerator list as read */
            return;
        }
    }
}

void sema_collect_macros(Program *prog)
{
    nmacros = nfn_macros = macro_depth = 0;
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind != ND_DIRECTIVE || !n->text) continue;
        const char *p = n->text + 1;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "define", 6) != 0 || (p[6] != ' ' && p[6] != '\t')) continue;
        p += 6;
        while (*p == ' ' || *p == '\t') p++;
        const char *b = p;
        while (isalnum((unsigned char)*p) || *p == '_') p++;
        if (*p == '(' && p > b && p - b < 64) { /* function-like: no value; whether it only computes */
            FnMacro *fm = NULL;
            for (int i = 0; i < nfn_macros && !fm; i++)
                if ((size_t)(p - b) == strlen(fn_macros[i].name) && !strncmp(fn_macros[i].name, b, (size_t)(p - b)))
                    fm = &fn_macros[i];
            if (!fm && nfn_macros < MAX_MACROS) {
                fm = &fn_macros[nfn_macros++];
                snprintf(fm->name, sizeof fm->name, "%.*s", (int)(p - b), b);
                fm->defs = 0;
            }
            if (!fm) continue;
            const char *close = strchr(p, ')');
            fm->defs++;
            fm->pure = close && pure_body(without_comments(close + 1));
            fm->text = p;
            fm->parsed = 0;
            continue;
        }
        if (p == b || p - b >= 64 || *p == '(' || nmacros == MAX_MACROS) continue;
        Macro *m = &macros[nmacros++];
        snprintf(m->name, sizeof m->name, "%.*s", (int)(p - b), b);
        m->body = without_comments(p);
        m->state = looks_constant(m->body) ? 0 : 3;
    }
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind != ND_VERBATIM || !n->text) continue;
        const char *t = n->text;
        if (!strncmp(t, "typedef", 7)) t += 7;
        while (isspace((unsigned char)*t)) t++;
        if (!strncmp(t, "enum", 4) && (isspace((unsigned char)t[4]) || t[4] == '{')) collect_enumerators(t);
    }
    /* a name defined twice (or as a macro and an enumerator) or undefined anywhere has no one value: none is used */
    for (Node *n = prog->top; n; n = n->next) {
        if (n->kind != ND_DIRECTIVE || !n->text) continue;
        const char *p = n->text + 1;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "undef", 5) != 0) continue;
        for (p += 5; *p == ' ' || *p == '\t'; p++) {}
        for (int i = 0; i < nmacros; i++)
            if (!strncmp(p, macros[i].name, strlen(macros[i].name)) &&
                !(isalnum((unsigned char)p[strlen(macros[i].name)]) || p[strlen(macros[i].name)] == '_'))
                macros[i].state = 3;
    }
    for (int i = 0; i < nmacros; i++)
        for (int j = i + 1; j < nmacros; j++)
            if (!strcmp(macros[i].name, macros[j].name)) macros[i].state = macros[j].state = 3;
}

long lang_macro_value(const char *name, bool *ok)
{
    *ok = false;
    if (!name) return 0;
    Macro *m = NULL;
    for (int i = 0; i < nmacros && !m; i++)
        if (!strcmp(macros[i].name, name)) m = &macros[i];
    if (!m || m->state == 3 || m->state == 1 || macro_depth >= MACRO_DEPTH) return 0;
    if (m->state == 0) {
        m->state = 1;
        SourceFile *f = lang_alloc(sizeof *f);
        f->name = name;
        f->len = strlen(m->body);
        char *text = lang_alloc(f->len + 1);
        memcpy(text, m->body, f->len);
        f->text = text;
        Parser P = {0};
        P.tok = tokenize(f);
        P.file = f;
        macro_depth++;
        Node *e = P.tok && P.tok->kind != TK_EOF ? parse_conditional(&P) : NULL;
        bool constant = false;
        const long v = e && !P.failed && P.tok && P.tok->kind == TK_EOF ? const_eval(e, &constant) : 0;
        macro_depth--;
        m->state = constant ? 2 : 3;
        m->value = v;
    }
    *ok = m->state == 2;
    return m->value;
}

/* The body of the function-like macro `name` as an expression (its names
 * unresolved) and its parameters' names, where it is defined once, only
 * computes and its body is one expression; else NULL. */
Node *lang_macro_body(const char *name, const char *const **params, int *nparams)
{
    FnMacro *fm = NULL;
    for (int i = 0; name && i < nfn_macros && !fm; i++)
        if (!strcmp(fn_macros[i].name, name)) fm = &fn_macros[i];
    if (!fm || fm->defs != 1 || !fm->pure || !fm->text || fm->parsed == 2 || macro_depth >= MACRO_DEPTH) return NULL;
    if (fm->parsed == 0) {
        fm->parsed = 2;
        const char *p = fm->text + 1, *close = strchr(fm->text, ')');
        if (!close) return NULL;
        fm->nparams = 0;
        while (p < close) { /* the parameters' names, split at commas */
            while (p < close && (*p == ' ' || *p == '\t')) p++;
            const char *w = p;
            while (p < close && (isalnum((unsigned char)*p) || *p == '_')) p++;
            if (p == w || fm->nparams == MAX_MACRO_PARAMS) return NULL;
            char *nm = lang_alloc((size_t)(p - w) + 1);
            memcpy(nm, w, (size_t)(p - w));
            fm->params[fm->nparams++] = nm;
            while (p < close && (*p == ' ' || *p == '\t')) p++;
            if (p < close && *p++ != ',') return NULL;
        }
        const char *body = without_comments(close + 1);
        SourceFile *f = lang_alloc(sizeof *f);
        f->name = fm->name;
        f->len = strlen(body);
        char *text = lang_alloc(f->len + 1);
        memcpy(text, body, f->len);
        f->text = text;
        /* a body that is no expression is no clamp: no message of it (its
         * uses reach the C compiler as they are) */
        const int errors = lang_diag.errors, max_errors = lang_diag.max_errors;
        lang_diag.max_errors = -1;
        Parser P = {0};
        P.tok = tokenize(f);
        P.file = f;
        macro_depth++;
        Node *e = P.tok && P.tok->kind != TK_EOF ? parse_conditional(&P) : NULL;
        macro_depth--;
        const bool failed = lang_diag.errors != errors;
        lang_diag.errors = errors;
        lang_diag.max_errors = max_errors;
        if (!e || failed || P.failed || !P.tok || P.tok->kind != TK_EOF) return NULL;
        fm->body = e;
        fm->parsed = 1;
    }
    *params = fm->params;
    *nparams = fm->nparams;
    return fm->body;
}

bool lang_defines_mention(const Program *prog, const char *name)
{
    const size_t len = strlen(name);
    for (const Node *n = prog->top; n; n = n->next) {
        if (n->kind != ND_DIRECTIVE || !n->text) continue;
        const char *p = n->text + 1;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "define", 6) != 0) continue;
        for (const char *q = p + 6; (q = strstr(q, name)) != NULL; q += len) {
            const bool before = q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_');
            const bool after = isalnum((unsigned char)q[len]) || q[len] == '_';
            if (!before && !after) return true;
        }
    }
    return false;
}
