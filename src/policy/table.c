/* The policy table: every start policy and every resize policy, with a
 * one-line description. A policy name is "<start>", "<resize>" (which starts
 * jobs with fcfs) or "<resize>+<start>". To add a policy, write its phase
 * functions in their own file, declare them in internal.h and add a row
 * here. */
#include "internal.h"

const morph__start_entry morph__start_table[] = {
    {"fcfs", "first come, first served; moldable jobs get as many units as are free (up to max)",
     morph__fcfs_start, 0},
    {"easy", "EASY backfilling: FCFS plus backfill that never delays the head job's reservation",
     morph__easy_start, 1},
};
const int morph__start_count = sizeof(morph__start_table) / sizeof(morph__start_table[0]);

const morph__resize_entry morph__resize_table[] = {
    {"dmr",
     "DMRlib Algorithm 2 (paper 000): expand below pref or when resources are free; shrink above "
     "pref only to start a pending job, which then goes first",
     NULL, morph__dmr_after},
    {"dmr-slurm",
     "DMRlib Algorithm 2 as Slurm's priority scheduler runs it: expansions only take free units "
     "no waiting job is waiting for, so they add up for the queue head until one shrink starts it",
     NULL, morph__dmr_slurm_after},
    {"rdmr",
     "reservation-aware DMR: shrink as many jobs above pref as the waiting head job needs, keep "
     "the units for it, expand only with units no waiting job holds",
     NULL, morph__rdmr_after},
    {"edmr",
     "efficiency-aware reservation DMR (ours): serve the waiting queue by shrinking the least "
     "efficient jobs, to pref then to min; grow only efficient jobs; move units from jobs paper "
     "002 would halve to jobs it would double",
     NULL, morph__edmr_after},
    {"mdmr",
     "MTCT + DMR (ours, the default on EASY): while jobs wait, halve what paper 002 would halve; "
     "when a third of the waiting jobs could start by shrinking, shrink jobs down to their minimum "
     "to start one and double what paper 002 would double, otherwise double only where EASY's "
     "reservation of the first waiting job is not delayed",
     morph__mdmr_before, morph__mdmr_after},
    {"stepping",
     "stepping scheduler (paper 002 5.4.4): grow every malleable job by step_units every "
     "step_period seconds, never shrink",
     NULL, morph__stepping_after},
    {"mtct",
     "Elastic MPI (paper 002 3.3.4): MPI-to-compute time above the upper threshold halves, both "
     "values below the lower one double",
     morph__mtct_before, morph__mtct_after},
    {"granularity",
     "malleable components (paper 003): one process per available processor; shrink off nodes "
     "that leave, spread free processors over malleable jobs",
     morph__granularity_before, morph__granularity_after},
};
const int morph__resize_count = sizeof(morph__resize_table) / sizeof(morph__resize_table[0]);
