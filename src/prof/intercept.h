/* libmorph-prof, the interception layer (intercept.c): what a consumer
 * above the runtime hooks into. */
#ifndef MORPH_PROF_INTERCEPT_H
#define MORPH_PROF_INTERCEPT_H

/* A replacement for MPI_Finalize's default work (stop the consumers, then
 * PMPI_Finalize), e.g. a front-end that must close its context first. */
typedef int (*morph__prof_finalize_fn)(void);

/* Makes the next MPI_Finalize call fn instead of the default work; fn is
 * forgotten before it runs, so an MPI_Finalize made by fn itself does the
 * default work. NULL restores the default. One hook at a time: a second
 * call replaces the first. Call from one thread, before MPI_Finalize. */
void morph__prof_on_finalize(morph__prof_finalize_fn fn);

#endif
