/* parac: GPU image processing in C. The umbrella header. */
#ifndef PARAC_PARAC_H
#define PARAC_PARAC_H

#include "parac/config.h"
#include "parac/context.h"
#include "parac/export.h"
#include "parac/fill.h"
#include "parac/filter.h"
#include "parac/image.h"
#include "parac/io.h"
#include "parac/label.h"
#include "parac/morph.h"
#include "parac/op.h"
#include "parac/opencl.h"
#include "parac/skeleton.h"
#include "parac/stats.h"
#include "parac/status.h"

#endif
