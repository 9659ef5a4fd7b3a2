/* The border rules an iterator reads through: one per matrix. An iterator
 * may name several (`parac_border_rule(left_right, top_bottom)`); rules about
 * one matrix become one rule with the entries of all, as if written in one
 * declaration, so the rest of the compiler sees at most one rule a matrix. */
#include <string.h>

#include "lang/lang.h"

void lang_set_rule(Iterator *it, BorderRule *rule)
{
    memset(it->rules, 0, sizeof it->rules);
    it->rule = rule;
    it->rules[0] = rule;
    it->nrules = rule ? 1 : 0;
}

BorderRule *lang_rule_about(const Iterator *it, const Obj *m)
{
    for (int i = 0; i < it->nrules; i++)
        if (it->rules[i] && it->rules[i]->var == m) return it->rules[i];
    return NULL;
}

const char *lang_rule_names(const Iterator *it)
{
    const char *s = "";
    for (int i = 0; i < it->nrules; i++) s = lang_format("%s%s%s", s, i ? ", " : "", it->rules[i]->name);
    return s;
}

/* the entries of a and b in one new rule about their matrix, named a+b */
static BorderRule *merge(const BorderRule *a, const BorderRule *b, const Token *where)
{
    BorderRule *r = lang_alloc(sizeof *r);
    r->name = lang_format("%s+%s", a->name, b->name);
    r->tok = a->tok;
    r->var = a->var;
    if (a->dist && b->dist && a->dist != b->dist) {
        /* one distance variable a rule: b's entries would print with a's */
        diag_error_tok(where, "border rules '%s' and '%s' both have entries at every distance: write them in one "
                       "rule", a->name, b->name);
        return r;
    }
    r->dist = a->dist ? a->dist : b->dist;
    BorderEntry head = {0}, *cur = &head;
    const BorderRule *parts[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (const BorderEntry *e = parts[k]->entries; e; e = e->next) {
            const BorderEntry *same = NULL;
            for (const BorderEntry *f = head.next; f; f = f->next)
                if (!memcmp(f->side, e->side, sizeof e->side)) same = f;
            if (same) {
                diag_error_tok(where, "border rules '%s' and '%s' both give %s a value at the same place", a->name,
                               b->name, a->var->name);
                diag_note_tok(e->tok, "one value is here");
                diag_note_tok(same->tok, "the other is here");
                continue;
            }
            BorderEntry *c = lang_alloc(sizeof *c);
            *c = *e;
            c->next = NULL;
            cur = cur->next = c;
        }
    r->entries = head.next;
    lang_rule_widths(r, where);
    return r;
}

void lang_resolve_rules(Iterator *it, BorderRule *(*find)(void *ctx, const char *name), void *ctx)
{
    lang_set_rule(it, NULL);
    for (Node *nm = it->rule_name; nm; nm = nm->next) {
        BorderRule *r = find(ctx, nm->name);
        if (!r) {
            diag_error_tok(nm->tok, "unknown border rule '%s'", nm->name);
            continue;
        }
        if (!r->var) continue; /* its entries had errors, reported with it */
        int i = 0;
        while (i < it->nrules && it->rules[i]->var != r->var) i++;
        if (i < it->nrules) {
            if (it->rules[i] == r) {
                diag_error_tok(nm->tok, "border rule '%s' is named twice", nm->name);
                continue;
            }
            it->rules[i] = merge(it->rules[i], r, nm->tok);
        } else if (it->nrules == PARAC_MAX_RULES) {
            diag_error_tok(nm->tok, "an iterator reads through at most %d border rules (about as many matrices)",
                           PARAC_MAX_RULES);
            break;
        } else
            it->rules[it->nrules++] = r;
    }
    it->rule = it->nrules ? it->rules[0] : NULL;
}

/* e is a side entry of axis a: -k or +k there, '*' on every other axis */
static bool side_entry(const BorderEntry *e, int a, int nd)
{
    for (int d = 0; d < nd; d++)
        if ((d == a) != (e->side[d] != 0)) return false;
    return true;
}

void lang_rule_widths(BorderRule *r, const Token *where)
{
    const int nd = r->var->ty->ndim;
    const Token *at = where ? where : r->tok;
    static const char *const axis_names[3][3] = {{"x"}, {"x (rows)", "y (columns)"},
                                                 {"x (planes)", "y (rows)", "z (columns)"}};
    for (int a = 0; a < 3; a++) r->width_lo[a] = r->width_hi[a] = 0;
    /* widths per axis from the side entries ('*' on the other axes), checked for gaps */
    for (int a = 0; a < nd; a++) {
        for (BorderEntry *b = r->entries; b; b = b->next) {
            if (!side_entry(b, a, nd)) continue;
            if (b->side[a] < 0 && -b->side[a] > r->width_lo[a]) r->width_lo[a] = -b->side[a];
            if (b->side[a] > 0 && b->side[a] > r->width_hi[a]) r->width_hi[a] = b->side[a];
        }
        for (int dir = -1; dir <= 1; dir += 2) {
            int w = dir < 0 ? r->width_lo[a] : r->width_hi[a];
            if (w == PARAC_SIDE_ANY) continue; /* an entry at every distance: no gap */
            for (int k = 1; k <= w; k++) {
                bool found = false;
                for (BorderEntry *b = r->entries; b; b = b->next)
                    if (b->side[a] == dir * k && side_entry(b, a, nd)) found = true;
                if (!found) {
                    const char *idx = "";
                    for (int d = 0; d < nd; d++)
                        idx = lang_format("%s[%s]", idx, d == a ? lang_format("%s%d", dir < 0 ? "-" : "+", k) : "*");
                    diag_error_tok(at, "border rule '%s' covers %s%d on axis %s but has no entry for %s%s", r->name,
                                   dir < 0 ? "-" : "+", w, nd == 1 ? "x" : axis_names[nd - 1][a], r->var->name, idx);
                }
            }
        }
    }
    /* duplicates within one declaration (merge() reports those between two) */
    if (where) return;
    for (BorderEntry *b = r->entries; b; b = b->next)
        for (BorderEntry *c = b->next; c; c = c->next)
            if (!memcmp(b->side, c->side, sizeof b->side))
                diag_error_tok(c->tok, "border rule '%s' gives this border twice", r->name);
}
