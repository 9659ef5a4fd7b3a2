/* Connectivity: which of a pixel's (voxel's) 26 neighbouring steps a
 * connectivity reaches, one rule for the CPU engines and the kernels of
 * reconstruction and filling. 4 and 6 reach the faces, 18 the faces and
 * edges, 8 and 26 every neighbour (8 within a plane). */
#ifndef PARAC_NEIGHBOURHOOD_H
#define PARAC_NEIGHBOURHOOD_H

#include "core/host_device.h"

/* Every connectivity, as a registry parameter's allowed values; which of
 * them an image takes is the operation's rule (a volume's 4/8 may mean each
 * plane on its own). */
#define PARAC__CONNECTIVITIES "4|8|6|18|26"

/* Whether conn is a connectivity of a volume (6, 18, 26) or of an image or
 * each plane of a volume (4, 8). */
PARAC_HD int parac__conn_is_3d(int conn) { return conn == 6 || conn == 18 || conn == 26; }

/* Whether conn reaches the step (dx, dy, dz), each -1, 0 or 1. */
PARAC_HD int parac__conn_reaches(int conn, int dx, int dy, int dz)
{
    const int steps = (dx != 0) + (dy != 0) + (dz != 0);
    if (steps == 0) return 0;
    if (conn == 4 || conn == 6) return steps == 1;
    if (conn == 18) return steps <= 2;
    return 1;
}

#endif
