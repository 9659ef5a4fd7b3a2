/* Diagnostics: "file:line:col: error: message", the source line and a caret. */
#include <string.h>

#include "lang/lang.h"

Diagnostics lang_diag = {NULL, 0, 20};

bool diag_too_many(void) { return lang_diag.errors >= lang_diag.max_errors; }

static void show_line(const SourceFile *f, int line, int col)
{
    FILE *out = lang_diag.out ? lang_diag.out : stderr;
    const char *p = f->text, *end = f->text + f->len;
    for (int l = 1; l < line && p < end; p++)
        if (*p == '\n') l++;
    const char *e = p;
    while (e < end && *e != '\n') e++;
    fprintf(out, "  %.*s\n  ", (int)(e - p), p);
    for (int i = 1; i < col && p + i - 1 < e; i++) fputc(p[i - 1] == '\t' ? '\t' : ' ', out);
    fputs("^\n", out);
}

static void vreport(const SourceFile *f, int line, int col, const char *kind, const char *fmt,
                    va_list ap)
{
    FILE *out = lang_diag.out ? lang_diag.out : stderr;
    if (f)
        fprintf(out, "%s:%d:%d: %s: ", f->name, line, col, kind);
    else
        fprintf(out, "paracc: %s: ", kind);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    if (f && line > 0) show_line(f, line, col);
}

void diag_error_at(const SourceFile *f, int line, int col, const char *fmt, ...)
{
    lang_diag.errors++;
    if (lang_diag.errors > lang_diag.max_errors) return;
    va_list ap;
    va_start(ap, fmt);
    vreport(f, line, col, "error", fmt, ap);
    va_end(ap);
}

void diag_error_tok(const Token *tok, const char *fmt, ...)
{
    lang_diag.errors++;
    if (lang_diag.errors > lang_diag.max_errors) return;
    va_list ap;
    va_start(ap, fmt);
    if (tok)
        vreport(tok->file, tok->line, tok->col, "error", fmt, ap);
    else
        vreport(NULL, 0, 0, "error", fmt, ap);
    va_end(ap);
}

void diag_note_tok(const Token *tok, const char *fmt, ...)
{
    if (lang_diag.errors > lang_diag.max_errors) return;
    va_list ap;
    va_start(ap, fmt);
    vreport(tok ? tok->file : NULL, tok ? tok->line : 0, tok ? tok->col : 0, "note", fmt, ap);
    va_end(ap);
}
