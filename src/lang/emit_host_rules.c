/* The run-time check that a border rule's values read inside their matrices.
 * An entry's value is read where it says (in[*][-3] = in[*][3]); for the
 * matrix's run-time sizes that place may lie outside it (3 columns), where a
 * read would be undefined. Before an iterator runs, the host evaluates the
 * index of every matrix read in the values of the entries its reads reach
 * (an entry at every distance at each distance up to the reach) wherever
 * the iteration space has border iterations on the entry's side, and
 * refuses with the entry's place (NAME_try: PARAC_ERR_INVALID_ARGUMENT).
 * A window of run-time length reaches as far as the host computed before
 * (host_run_time_reach); where its start is not coef * index plus host
 * values, no distance is known: every entry is checked (at the place it
 * names: analysis.c refuses entries whose reads move with the distance
 * there). */
#include <string.h>

#include "lang/emit_host.h"

/* Prints a check of each read M[..][E].. in value v whose indices the host can evaluate. */
static void check_reads(PrintCtx *p, const Node *v, const char *where, const BorderRule *rule, int depth)
{
    if (!v || depth > 200) return;
    if (v->kind == ND_INDEX) {
        const Node *ix[4], *base = v;
        int k = 0;
        while (base->kind == ND_INDEX && k < 4) {
            ix[k++] = base->rhs;
            base = base->lhs;
        }
        const Obj *m = base->kind == ND_VAR ? base->var : NULL;
        if (m && m->ty && m->ty->kind == TY_MATRIX && !m->is_small_const && k == m->ty->ndim) {
            for (int i = 0; i < k; i++) {
                const Node *e = ix[k - 1 - i];
                if (e->kind == ND_WILDCARD || !lang_host_value(e, 0)) continue;
                print_indent(p);
                fprintf(p->out, "parac__rule_read((long)(");
                print_expr(p, (Node *)e);
                fprintf(p->out, "), %s_d%d, \"%s\", \"%s\", \"%s\", %d);\n", m->name, i, where, rule->name, m->name, i);
            }
        }
    }
    NodeKids kids = {.n = v};
    for (const Node *c; (c = lang_next_kid(&kids));) check_reads(p, c, where, rule, depth + 1);
}

void host_check_rule_values(PrintCtx *p, const Region *r)
{
    for (int i = 0; r->has_border && i < r->nreach; i++) {
        const RuleReach *rr = &r->reach[i];
        const BorderRule *rule = rr->rule;
        if (!rule || !rule->var) continue;
        if (rr->everywhere) {
            /* reads of unknown reach may reach any entry, so each is checked; none
             * reads at a place moving with the distance (analysis.c refuses those) */
            for (const BorderEntry *e = rule->entries; e; e = e->next) {
                const char *where = lang_format("%s:%d", p->host->file, e->tok->line);
                print_line(p, "{ /* %s: border rule %s's entry reads inside its matrices */", where, rule->name);
                p->indent++;
                check_reads(p, e->value, where, rule, 0);
                p->indent--;
                print_line(p, "}");
            }
            continue;
        }
        for (const BorderEntry *e = rule->entries; e; e = e->next) {
            /* the entry is reached where every side it names is: a fixed distance within the
             * reads' reach, an entry at every distance up to it; at run time, where the
             * iteration space has border iterations on that side */
            bool reached = true;
            const char *far = NULL;
            const char *cond = "1";
            for (int d = 0; d < rule->var->ty->ndim && reached; d++) {
                const int s = e->side[d];
                if (!s) continue;
                const int need = s < 0 ? rr->need_lo[d] : rr->need_hi[d];
                const bool any = s == PARAC_SIDE_ANY || s == -PARAC_SIDE_ANY;
                /* with windows of run-time length the reach is the host's (at least need) */
                const char *reach = rr->ndyn[d] ? lang_format("parac_r%s%d_%d", s < 0 ? "lo" : "hi", i, d) : NULL;
                const int fixed = s < 0 ? rr->fixed_lo[d] : rr->fixed_hi[d];
                if (need == 0 || (!any && !reach && (s < 0 ? -s : s) > need)) reached = false;
                if (reach && (s < 0 ? -s : s) > fixed) /* reached if the run-time reach is that far */
                    cond = lang_format("%s && %s >= %d", cond, reach, any ? 1 : s < 0 ? -s : s);
                if (any) far = reach ? reach : lang_format("%d", need);
                const int a = rr->aff[d].axis;
                if (a >= 0 && rr->aff[d].coef != 0) {
                    const bool low = (s < 0) == (rr->aff[d].coef > 0); /* the iterations before the interior */
                    cond = lang_format("%s && %s", cond, low ? lang_format("parac_lo[%d] > 0", a)
                                                             : lang_format("parac_hi[%d] < parac_n[%d]", a, a));
                }
            }
            if (!reached) continue;
            const char *where = lang_format("%s:%d", p->host->file, e->tok->line);
            print_line(p, "if (%s) { /* %s: border rule %s's entry reads inside its matrices */", cond, where,
                       rule->name);
            p->indent++;
            if (far) {
                print_line(p, "for (long %s = 1; %s <= %s; %s++) {", rule->dist->name, rule->dist->name, far,
                           rule->dist->name);
                p->indent++;
            }
            check_reads(p, e->value, where, rule, 0);
            if (far) {
                p->indent--;
                print_line(p, "}");
            }
            p->indent--;
            print_line(p, "}");
        }
    }
}
