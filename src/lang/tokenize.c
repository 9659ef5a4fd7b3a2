/* Tokenizer. Preprocessor lines are not expanded here: each becomes one
 * TK_DIRECTIVE token that the back ends copy to their outputs, so macros and
 * #include lines reach the C compiler (and macros the OpenCL compiler)
 * unchanged. Line splices inside directives are kept. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

static const char *keywords[] = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
    "struct", "union", "enum", "typedef", "static", "extern", "const", "volatile", "restrict",
    "inline", "auto", "register", "if", "else", "for", "while", "do", "return", "break",
    "continue", "switch", "case", "default", "goto", "sizeof", "_Alignof", "__restrict",
    "__inline", "parac_matrix", "parac_vector", "parac_pyramid", "parac_iterator", "parac_border_rule",
    "iter_element",
};

static const char *puncts[] = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*",
};

static Token *new_token(TokenKind kind, const SourceFile *f, const char *start, const char *end,
                        int line, int col)
{
    Token *t = lang_alloc(sizeof *t);
    t->kind = kind;
    t->loc = start;
    t->len = (int)(end - start);
    t->line = line;
    t->col = col;
    t->file = f;
    return t;
}

static bool is_ident1(int c) { return isalpha(c) || c == '_'; }
static bool is_ident2(int c) { return isalnum(c) || c == '_'; }

static void convert_number(Token *t)
{
    char *text = tok_text(t);
    bool fl = false;
    if (!(text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))) {
        for (char *p = text; *p; p++)
            if (*p == '.' || *p == 'e' || *p == 'E') fl = true;
    } else {
        for (char *p = text; *p; p++)
            if (*p == 'p' || *p == 'P' || *p == '.') fl = true;
    }
    if (fl) {
        t->is_float = true;
        t->fval = strtod(text, NULL);
    } else {
        t->ival = (long long)strtoull(text, NULL, 0);
    }
}

Token *tokenize(const SourceFile *f)
{
    Token head = {0};
    Token *cur = &head;
    const char *p = f->text, *end = f->text + f->len;
    int line = 1;
    const char *line_start = p;
    bool at_bol = true;
#define COL() ((int)(p - line_start) + 1)
    while (p < end) {
        if (*p == '\n') {
            p++;
            line++;
            line_start = p;
            at_bol = true;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (p + 1 < end && p[0] == '/' && p[1] == '/') {
            while (p < end && *p != '\n') p++;
            continue;
        }
        if (p + 1 < end && p[0] == '/' && p[1] == '*') {
            const char *q = p + 2;
            while (q + 1 < end && !(q[0] == '*' && q[1] == '/')) {
                if (*q == '\n') {
                    line++;
                    line_start = q + 1;
                }
                q++;
            }
            if (q + 1 >= end) {
                diag_error_at(f, line, COL(), "unterminated comment");
                break;
            }
            p = q + 2;
            continue;
        }
        if (*p == '#' && at_bol) {
            const char *s = p;
            int l0 = line, c0 = COL();
            while (p < end && *p != '\n') {
                if (*p == '\\' && p + 1 < end && p[1] == '\n') {
                    p += 2;
                    line++;
                    line_start = p;
                    continue;
                }
                p++;
            }
            cur = cur->next = new_token(TK_DIRECTIVE, f, s, p, l0, c0);
            continue;
        }
        at_bol = false;
        int col = COL();
        if (isdigit((unsigned char)*p) || (*p == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
            const char *s = p;
            for (;;) {
                if (p + 1 < end && (p[0] == 'e' || p[0] == 'E' || p[0] == 'p' || p[0] == 'P') &&
                    (p[1] == '+' || p[1] == '-'))
                    p += 2;
                else if (p < end && (isalnum((unsigned char)*p) || *p == '.'))
                    p++;
                else
                    break;
            }
            cur = cur->next = new_token(TK_NUM, f, s, p, line, col);
            convert_number(cur);
            continue;
        }
        if (*p == '"' || *p == '\'') {
            char q = *p;
            const char *s = p++;
            while (p < end && *p != q && *p != '\n') {
                if (*p == '\\' && p + 1 < end) p++;
                p++;
            }
            if (p >= end || *p != q) {
                diag_error_at(f, line, col, "unterminated %s literal", q == '"' ? "string" : "character");
                continue;
            }
            p++;
            cur = cur->next = new_token(q == '"' ? TK_STR : TK_CHAR, f, s, p, line, col);
            continue;
        }
        if (is_ident1((unsigned char)*p)) {
            const char *s = p;
            while (p < end && is_ident2((unsigned char)*p)) p++;
            cur = cur->next = new_token(TK_IDENT, f, s, p, line, col);
            for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
                if (tok_is(cur, keywords[i])) cur->kind = TK_KEYWORD;
            continue;
        }
        size_t n = 0;
        for (size_t i = 0; i < sizeof puncts / sizeof *puncts; i++) {
            size_t l = strlen(puncts[i]);
            if ((size_t)(end - p) >= l && memcmp(p, puncts[i], l) == 0 && l > n) n = l;
        }
        if (!n && strchr("+-*/%&|^~!<>=?:;,.()[]{}", *p)) n = 1;
        if (!n) {
            diag_error_at(f, line, col, "unexpected character '%c' (0x%02x)",
                          isprint((unsigned char)*p) ? *p : '?', (unsigned char)*p);
            p++;
            continue;
        }
        cur = cur->next = new_token(TK_PUNCT, f, p, p + n, line, col);
        p += n;
    }
    cur = cur->next = new_token(TK_EOF, f, p, p, line, COL());
#undef COL
    return head.next;
}
