/* Host / device split: decides what crosses into each kernel and in which
 * order its arguments go. Matrices go first (a buffer plus pitch and sizes),
 * then host scalars by value, sorted by declaration so the signature is
 * stable. Objects used on the device are marked, which the host code uses to
 * create buffers and insert transfers. */
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

static int by_id(const void *a, const void *b)
{
    const Obj *x = *(Obj *const *)a, *y = *(Obj *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Names that OpenCL C or CUDA C++ reserve (types, qualifiers, keywords,
 * built-ins the generated code calls): program variables with these names
 * are renamed NAME_v in every output. */
static bool reserved_name(const char *n)
{
    static const char *words[] = {
        "half", "uchar", "ushort", "uint", "ulong", "bool", "global", "local", "constant", "private",
        "kernel", "read_only", "write_only", "read_write", "image1d_t", "image2d_t", "image3d_t",
        "sampler_t", "event_t", "vec_step", "complex", "imaginary", "min", "max", "clamp", "mix",
        "select", "dot", "cross", "length", "normalize", "quad", "double2", "__global", "__local",
        "__constant", "__private", "__kernel", "get_global_id", "barrier", "sqrt", "fabs",
        /* C++ keywords and CUDA's built-in variables */
        "class", "new", "delete", "this", "template", "typename", "namespace", "operator", "public",
        "protected", "friend", "virtual", "using", "try", "catch", "throw", "explicit", "mutable", "export",
        "nullptr", "decltype", "constexpr", "and", "or", "not", "xor", "threadIdx", "blockIdx", "blockDim",
        "gridDim", "warpSize", "dim3", "parac_min", "parac_max",
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(n, words[i])) return true;
    /* vector types: char2, float16, ... */
    static const char *bases[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                                  "float", "double", "half"};
    for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
        size_t l = strlen(bases[i]);
        if (!strncmp(n, bases[i], l)) {
            const char *r = n + l;
            if (!strcmp(r, "2") || !strcmp(r, "3") || !strcmp(r, "4") || !strcmp(r, "8") || !strcmp(r, "16"))
                return true;
        }
    }
    return false;
}

static void rename_objs(Node *n, int depth)
{
    if (!n || depth > 400) return;
    if ((n->kind == ND_DECL || n->kind == ND_PARAM) && n->var && !n->var->is_func && n->var->name &&
        reserved_name(n->var->name))
        n->var->name = lang_format("%s_v", n->var->name);
    for (Node *d = n->decls; d; d = d->next) rename_objs(d, depth + 1);
    if (n->kind == ND_FUNC && n->ty)
        for (Node *q = n->ty->params; q; q = q->next) rename_objs(q, depth + 1);
    rename_objs(n->lhs, depth + 1);
    rename_objs(n->rhs, depth + 1);
    rename_objs(n->then, depth + 1);
    rename_objs(n->els, depth + 1);
    rename_objs(n->init, depth + 1);
    rename_objs(n->body, depth + 1);
    if (n->kind == ND_ITERATOR && n->iter) rename_objs(n->iter->body, depth + 1);
    if (n->kind == ND_BLOCK)
        for (Node *a = n->args; a; a = a->next) rename_objs(a, depth + 1);
}

void split_program(Program *prog)
{
    for (Node *n = prog->top; n; n = n->next) rename_objs(n, 0);
    for (Region *r = prog->regions; r; r = r->next) {
        if (r->nmats) qsort(r->mats, (size_t)r->nmats, sizeof *r->mats, by_id);
        if (r->nscalars) qsort(r->scalars, (size_t)r->nscalars, sizeof *r->scalars, by_id);
        for (int i = 0; i < r->nmats; i++) r->mats[i]->used_in_kernel = true;
        for (int i = 0; i < r->nscalars; i++) {
            Obj *o = r->scalars[i];
            if (o->is_global && !o->ty->is_const)
                diag_error_tok(o->tok, "global '%s' is used inside a parallel region", o->name);
        }
    }
}
