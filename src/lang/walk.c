/* The children of a node, one after another, for the passes' tree walks. */
#include "lang/lang.h"

Node *lang_next_kid(NodeKids *k)
{
    const Node *n = k->n;
    Node *const fixed[] = {n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc, n->body};
    for (;;) {
        switch (k->stage) {
        case 0: /* the fixed fields */
            while (k->i < 8) {
                Node *c = fixed[k->i++];
                if (c) return c;
            }
            k->stage = 1;
            k->list = n->args;
            break;
        case 1: /* call arguments, block statements, list elements */
            if (k->list) {
                Node *c = k->list;
                k->list = c->next;
                return c;
            }
            k->stage = 2;
            k->list = n->decls;
            break;
        case 2: /* declarators' initialisers */
            while (k->list) {
                Node *c = k->list->init;
                k->list = k->list->next;
                if (c) return c;
            }
            k->stage = 3;
            k->i = 0;
            break;
        case 3: /* indices */
            while (k->i < n->nidx) {
                Node *c = n->idx[k->i++];
                if (c) return c;
            }
            k->stage = 4;
            break;
        default:
            return NULL;
        }
    }
}
