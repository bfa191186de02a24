/* Shared declarations of the morph-sim program's files. */
#ifndef MORPH_TOOLS_SIM_H
#define MORPH_TOOLS_SIM_H

#include "morph/sim.h"

/* `morph sim limits ...`; returns the exit status. */
int morph__tool_limits(int argc, char **argv);

#endif
