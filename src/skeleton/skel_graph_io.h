/* Writing the skeleton graph (JSON, OBJ or SWC by the file's extension). */
#ifndef PARAC_SKELETON_SKEL_GRAPH_IO_H
#define PARAC_SKELETON_SKEL_GRAPH_IO_H

#include "skel_trace.h"

parac_status parac__skel_write_graph(const char *path, const parac__skel_graph *g, const double spacing[3]);

#endif
