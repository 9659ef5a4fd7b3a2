/* The parser's files (parse_program in parse.c is the pass's entry point):
 * the parser's state and what they ask of each other. */
#ifndef PARAC_LANG_PARSE_H
#define PARAC_LANG_PARSE_H

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
    Token *last;        /* the last token consumed by parse_consume()/parse_expect() */
} Parser;

enum { MAX_DEPTH = 200 };

/* What a declaration's specifiers say. */
typedef struct DeclSpec {
    Type *ty;
    bool is_typedef, is_static, is_extern, is_inline;
    bool matrix, vector;
    bool pyramid; /* parac_pyramid (matrix is set too) */
} DeclSpec;

void parse_error_here(Parser *P, const char *fmt, const char *what);
static inline bool equal(Parser *P, const char *s) { return tok_is(P->tok, s); }
bool parse_consume(Parser *P, const char *s);
void parse_expect(Parser *P, const char *s);
bool parse_is_type_start(Parser *P, Token *t);
DeclSpec parse_declspec(Parser *P);
Type *parse_pointer_to(Type *base);
bool parse_enter(Parser *P);
Node *parse_conditional(Parser *P);
Node *parse_assign(Parser *P);
Node *parse_expr(Parser *P);

#endif
