/*
 * morph/workload.h - workloads of timed job submissions, shared by
 * `morph workload run` (real jobs on morphd) and `morph sim` (simulation).
 *
 * A workload is a list of jobs, each submitted at a time (seconds from the
 * start of the workload) with a kind (paper 000, Table 3), a submission
 * request, malleability limits, an application with its arguments for real
 * runs, and an execution-time model for simulation. One file serves both
 * uses; docs/workload.md describes the JSON format.
 *
 * Sizes are in resource units: nodes in the simulator and in paper 000 (one
 * process per node), slots for morphd's embedded backend. A workload does
 * not say which; the cluster that runs it does.
 *
 * Error contract. Every int function returns MORPH_OK or a negative code of
 * morph/error.h. Functions that take a workload keep a message of their last
 * failure in it (morph_workload_errmsg); parse errors name the file, the
 * line and the field ("w.json:12: jobs[3].kind: unknown kind 'elastic'").
 * Unless said otherwise, a failed call leaves the workload as it was.
 *
 * Threads: a workload is used by one thread at a time; distinct workloads
 * are independent (there is no global state).
 */
#ifndef MORPH_WORKLOAD_H
#define MORPH_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "morph/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Paper 000, Table 3: whether a job may be resized at start (moldable
 * submission) and while it runs (malleable). */
typedef enum morph_job_kind {
  MORPH_KIND_FIXED = 0,  /* rigid submission, never resized */
  MORPH_KIND_MOLDABLE,   /* min-max submission, size fixed once started */
  MORPH_KIND_MALLEABLE,  /* rigid submission, resized while running */
  MORPH_KIND_FLEXIBLE,   /* min-max submission, resized while running */
  MORPH_KIND_COUNT
} morph_job_kind;

/* "fixed", "moldable", "malleable", "flexible"; "?" outside the enum.
 * Never NULL. */
const char *morph_job_kind_name(morph_job_kind kind);

/* Parses a kind name (also "pure-moldable", "pure-malleable").
 * Errors: MORPH_EINVAL for an unknown name (*kind unchanged). */
int morph_job_kind_parse(const char *name, morph_job_kind *kind);

/* Nonzero for MALLEABLE and FLEXIBLE. Never fails. */
int morph_job_kind_malleable(morph_job_kind kind);

/* Nonzero for MOLDABLE and FLEXIBLE (min-max submission). Never fails. */
int morph_job_kind_moldable(morph_job_kind kind);

/* Upper limits of what a workload may hold, checked at load (JSON, SWF,
 * morph_workload_add): the simulator steps through simulated time and
 * counts units in ints, so a job of 1e300 s or 2^31 processors would
 * never end or overflow. A job's time at any size (scale included) lies
 * in [MORPH_WORKLOAD_TIME_MIN, MORPH_WORKLOAD_TIME_MAX] seconds, submit
 * times are at most MORPH_WORKLOAD_TIME_MAX, sizes (requests, limits,
 * table sizes) at most MORPH_WORKLOAD_SIZE_MAX units, data_bytes at most
 * MORPH_WORKLOAD_DATA_MAX, iterations at most MORPH_WORKLOAD_ITER_MAX,
 * the inhibitor at most MORPH_WORKLOAD_TIME_MAX. */
#define MORPH_WORKLOAD_TIME_MAX 1e9   /* seconds, about 31 years */
#define MORPH_WORKLOAD_TIME_MIN 1e-6  /* seconds */
#define MORPH_WORKLOAD_SIZE_MAX 1000000
#define MORPH_WORKLOAD_DATA_MAX 1e15  /* bytes: 1 PB */
#define MORPH_WORKLOAD_ITER_MAX 1000000000

/* Execution-time models; see docs/sim.md for their derivations. */
typedef enum morph_model_type {
  MORPH_MODEL_TABLE = 0, /* measured times at sizes, interpolated */
  MORPH_MODEL_AMDAHL,    /* t(n) = t1 * (serial + (1 - serial) / n) */
  MORPH_MODEL_DOWNEY     /* t(n) = t1 / S(n), Downey's speedup (A, sigma) */
} morph_model_type;

#define MORPH_MODEL_TABLE_MAX 16

/* How long a job runs at each size and what a resize costs it. */
typedef struct morph_model {
  morph_model_type type;
  double t1;         /* AMDAHL, DOWNEY: seconds of the whole job on one unit */
  double serial;     /* AMDAHL: serial fraction in [0, 1] */
  double downey_a;   /* DOWNEY: average parallelism A >= 1 */
  double downey_sigma; /* DOWNEY: variance of parallelism sigma >= 0 */
  int table_len;     /* TABLE: points, increasing sizes, at least 1 */
  int table_size[MORPH_MODEL_TABLE_MAX];
  double table_time[MORPH_MODEL_TABLE_MAX]; /* seconds of the whole job */
  double scale;      /* every time is multiplied by this (iterations) */
  double data_bytes; /* state redistributed when the job is resized */
  double inhibit_s;  /* DMRlib scheduling period: no resize within this many
                        seconds of the previous check (0: every point) */
  int iterations;    /* reconfiguration points over the whole job: a resize
                        can happen only at an iteration end (0: anytime) */
  double mpi_share;  /* MPI time / loop time at the model's smallest size,
                        0..1 (0); see morph_model_mpi_share() */
} morph_model;

/* Seconds the whole job takes at a constant size n >= 1 (TABLE: log-log
 * interpolation between points, constant beyond the ends; scale applied).
 * Never fails: a positive number for any valid model (n < 1 counts as 1). */
double morph_model_time(const morph_model *model, int n);

/* Modelled MPI-to-compute time ratio (paper 002's MTCT) at size n >= 1:
 * 1 - (1 - mpi_share) * E(n), E(n) = n0 T(n0) / (n T(n)) the parallel
 * efficiency against the model's smallest size n0 (1, or the first table
 * size). A process that is not computing its share waits in MPI, as the
 * processes of an Amdahl code wait for the serial part: efficiency lost
 * to scaling shows up as MPI time, which is how Elastic MPI reads MTCT.
 * In [0, 1]. Never fails. */
double morph_model_mpi_share(const morph_model *model, int n);

/* Checks a model's parameters and the limits above (the message names the
 * field). Errors: MORPH_EINVAL with a reason in
 * why (if not NULL, at most whylen bytes). */
int morph_model_check(const morph_model *model, char *why, size_t whylen);

/* One submission. Strings are owned by the workload. */
typedef struct morph_wjob {
  char *name;          /* unique in the workload ("job-17" when not given) */
  double submit;       /* seconds from the start of the workload, >= 0 */
  morph_job_kind kind;
  int req_min, req_max; /* request: rigid when equal (sbatch -N min-max) */
  int min, max, pref;  /* malleability limits, min <= pref <= max */
  char *app;           /* "cg", "jacobi", "nbody", "hpg-aligner", "heat",
                          "farm" or "generic" */
  int argc;            /* arguments for real runs (argv[argc] == NULL) */
  char **argv;
  morph_model model;   /* for simulation */
  char *matrix;        /* its communication matrix (Matrix Market file,
                          docs/prof.md) for the placement; a JSON file's
                          "matrix" resolved against the file's folder;
                          NULL: none */
  int line;            /* line in the source file; 0 when generated */
  double walltime;     /* requested time limit in seconds, for the job at
                          its largest request req_max (SWF field 9, JSON
                          "walltime", Tsafrir's model); 0: not given. The
                          simulator plans with it and kills the job there
                          (docs/sim.md "Estimates and time limits") */
} morph_wjob;

/* An input record that is not a job (SWF: run time or size <= 0, a job
 * cancelled before it ran). Runners count it as skipped, by name. */
typedef struct morph_wskip {
  char name[32];       /* "swf-<job number>" */
  int line;            /* line in the source file */
  double submit;       /* on the workload's clock, as a job's */
} morph_wskip;

/* A workload. Fields are read-only for users: change it through the
 * functions below so that strings stay owned and counts stay right. */
typedef struct morph_workload {
  char *name;          /* workload name (file name when not given) */
  int nodes;           /* cluster size the workload was made for; 0: any */
  size_t njobs;
  morph_wjob *jobs;    /* sorted by submit time (stable) after any load */
  size_t cap;          /* allocated entries of jobs */
  size_t skipped;      /* input records skipped (SWF: cancelled jobs) */
  morph_wskip *skips;  /* those records, `skipped` of them */
  size_t skips_cap;
  void *index;         /* internal: name index (opaque) */
  char errmsg[512];
} morph_workload;

/* Creates an empty workload. Errors: MORPH_EINVAL (out NULL),
 * MORPH_ENOMEM (*out NULL). */
int morph_workload_create(morph_workload **out);

/* Frees a workload and everything it owns; NULL is fine. */
void morph_workload_destroy(morph_workload *wl);

/* Message of the last failure ("" after success). Never NULL. */
const char *morph_workload_errmsg(const morph_workload *wl);

/* Removes every job (keeps the allocation). */
void morph_workload_clear(morph_workload *wl);

/* Appends a copy of job (strings and argv are copied; a NULL name becomes
 * "job-<index>"). Does not re-sort. Errors: MORPH_EINVAL (bad limits,
 * request, model or negative submit time; message names the field),
 * MORPH_EEXIST (name already used), MORPH_ENOMEM. */
int morph_workload_add(morph_workload *wl, const morph_wjob *job);

/* Sorts jobs by submit time, keeping file order among equal times. */
void morph_workload_sort(morph_workload *wl);

/* Index of the job with this name; -1 if there is none (or for NULL). */
long morph_workload_find(const morph_workload *wl, const char *name);

/* Reads a JSON workload file (replaces the current jobs).
 * Errors: MORPH_EIO (cannot read), MORPH_EPARSE (bad JSON or bad field;
 * message "file:line: jobs[i].field: reason"), MORPH_ENOMEM. On error the
 * workload is left empty. */
int morph_workload_load_json(morph_workload *wl, const char *path);

/* Same, from a string; origin names it in messages. */
int morph_workload_parse_json(morph_workload *wl, const char *text, const char *origin);

/* Writes the workload as JSON (the format morph_workload_load_json reads;
 * a saved workload loads back identical). Errors: MORPH_EIO. */
int morph_workload_save_json(const morph_workload *wl, const char *path);

/* Same, to an open stream. */
int morph_workload_write_json(const morph_workload *wl, FILE *out);

/* Options of the SWF importer; morph_swf_options_init sets the defaults
 * written after each field. */
typedef struct morph_swf_options {
  int units_per_node;      /* SWF processors per resource unit (1) */
  double malleable_share;  /* share of rigid jobs made malleable, 0..1 (0) */
  int moldable;            /* submit as min-max instead of rigid (0) */
  int rest_fixed;          /* with moldable: only the malleable jobs are
                              submitted min-max (FLEXIBLE), the others stay
                              rigid as traced (FIXED) (0) */
  uint64_t seed;           /* chooses which jobs become malleable (1) */
  double serial;           /* Amdahl serial fraction of every job (0.05) */
  double min_factor;       /* malleable min = ceil(n * min_factor) (0.25) */
  double max_factor;       /* malleable max = n * max_factor (2), capped
                              at max_size when that is > 0 */
  int max_size;            /* largest size a job may get; 0: no cap (0) */
  double data_bytes_per_unit; /* resize state per unit of size (1 GiB) */
  long limit;              /* read at most this many jobs; 0: all (0) */
} morph_swf_options;

void morph_swf_options_init(morph_swf_options *opt);

/* Reads a Standard Workload Format v2.2 trace (Parallel Workloads Archive).
 * Each job keeps its submit time (shifted so the earliest is 0; records
 * need not be sorted), its size (allocated processors, else requested,
 * divided by units_per_node and rounded up, cut to max_size when > 0) and
 * its run time, which becomes an Amdahl model whose time at the traced size
 * equals the run time, and its requested time (field 9) as walltime; a
 * job that ran longer than it requested (the site let it) gets its run
 * time as walltime, -1 stays 0 (unknown). A malleable_share of the jobs, chosen at random for
 * the seed, become MALLEABLE (or FLEXIBLE with moldable) with limits from
 * min_factor / max_factor and pref = the size. Records with a run time or
 * size <= 0 (cancelled jobs) are not loaded but kept in wl->skips and
 * counted in wl->skipped. Comment lines (';') and blank lines are ignored.
 * Errors: MORPH_EIO, MORPH_EPARSE (every message names file and line:
 * "log.swf:3: field 5 (allocated processors): not a number: 'four'";
 * values beyond the limits above; a NUL byte, i.e. a binary file; a file
 * without any job record), MORPH_EINVAL (options), MORPH_ENOMEM; on error
 * the workload is left empty. */
int morph_workload_load_swf(morph_workload *wl, const char *path, const morph_swf_options *opt);

/* Writes the workload as an SWF v2.2 trace: one record per job (submit
 * time, run time at its largest request, that request as allocated and
 * requested processors, its walltime as requested time or -1, status 1)
 * and one per skipped record (run time
 * -1), in submission order, after a header of ';' comments naming the
 * workload. Models, kinds and limits are not kept: SWF has no field for
 * them. Errors: MORPH_EIO. */
int morph_workload_write_swf(const morph_workload *wl, FILE *out, const char *comment);

/* Counts the jobs with a requested time (walltime > 0) and puts the
 * largest in *max (0 if none; max may be NULL). */
size_t morph_workload_walltimes(const morph_workload *wl, double *max);

/* Multiplies every submit time (skipped records' too) by the factor that
 * makes the offered load (morph_workload_offered_load on `nodes` units)
 * equal to `load`: a trace is compressed (factor < 1) or stretched. The
 * factor is written to *factor when not NULL.
 * Errors: MORPH_EINVAL (NULL, nodes < 1, load <= 0, or a workload whose
 * load is 0: fewer than two distinct submit times; nothing changed). */
int morph_workload_set_load(morph_workload *wl, int nodes, double load, double *factor);

/* Draws every job's requested time from Tsafrir's model of user estimates
 * (D. Tsafrir, Y. Etsion, D. G. Feitelson, "Modeling User Runtime
 * Estimates", JSSPP 2005; docs/workload.md): a few popular values (the
 * largest allowed, max_estimate, then round ones: 5, 10, 15, 20, 30 min,
 * 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h, ...) take 89 % of the jobs, a tail of
 * rarer values the rest, and each job gets one that is at least its run
 * time at req_max (jobs sorted by run time, a value drawn among those
 * still free that cover it). Deterministic for a seed. Jobs that run
 * longer than max_estimate get their run time.
 * Errors: MORPH_EINVAL (NULL, max_estimate < 3600 s or above
 * MORPH_WORKLOAD_TIME_MAX), MORPH_ENOMEM; on error nothing changed. */
int morph_workload_estimates_tsafrir(morph_workload *wl, double max_estimate, uint64_t seed);

/* Cuts every job's request and malleability limits to at most max_size
 * units (> 0): the largest size a job may be given, whatever the input
 * (paper 000 caps requests at 32 of 128 nodes). Models are unchanged, so a
 * traced job that is cut runs longer than recorded. Returns the number of
 * jobs whose request was cut and names the first in the message. A cut
 * job's walltime grows by the ratio of the sizes (it was for the request).
 * Never fails (0 for NULL or max_size <= 0). */
size_t morph_workload_cap_sizes(morph_workload *wl, int max_size);

/* Sets every job's scheduling inhibitor (model.inhibit, DMRlib's
 * scheduling period) to `seconds`, for studies that vary it.
 * Errors: MORPH_EINVAL (NULL, or seconds outside 0..MORPH_WORKLOAD_TIME_MAX;
 * nothing changed). */
int morph_workload_set_inhibit(morph_workload *wl, double seconds);

/* Options of the generator (paper 000, section 5.4). */
typedef struct morph_gen_options {
  size_t njobs;            /* number of jobs (1000) */
  uint64_t seed;           /* same seed, same workload (1) */
  double mean_interarrival; /* seconds between submissions on average (10) */
  double arrival_factor;   /* Feitelson's factor: multiplies inter-arrival
                              times; 1 is the paper's stressed case (1) */
  int moldable;            /* min-max submission instead of rigid (0) */
  double malleable_share;  /* share of malleable jobs, 0..1 (1) */
  const char *malleable_app; /* if set, only this application is malleable
                              (Table 7); malleable_share is then ignored */
  const char *const *apps; /* applications mixed at random with equal
                              probability; NULL: cg, jacobi, nbody,
                              hpg-aligner */
  size_t napps;
  int max_size;            /* cap on any size (32); 0: the catalog's */
} morph_gen_options;

/* Sets the defaults (in parentheses above). */
void morph_gen_options_init(morph_gen_options *opt);

/* Generates a workload: Poisson arrivals (exponential inter-arrival times,
 * mean mean_interarrival * arrival_factor), each job one of the apps at
 * random with the catalog's limits (Table 5) and request (Table 6), kind
 * from moldable and the malleable choice. Deterministic for a seed on every
 * platform (own generator, no libc rand). Replaces the current jobs.
 * Errors: MORPH_EINVAL (njobs 0, unknown app, bad numbers), MORPH_ENOMEM. */
int morph_workload_generate(morph_workload *wl, const morph_gen_options *opt);

/* Options of the Lublin-Feitelson generator; morph_lublin_options_init
 * sets the defaults written after each field. */
typedef struct morph_lublin_options {
  size_t njobs;        /* number of jobs, >= 2 (1000) */
  uint64_t seed;       /* same seed, same workload (1) */
  int nodes;           /* machine size: the largest job, and the size
                          distribution's upper end log2(nodes) (128) */
  double load;         /* offered load sum(run x size) / (nodes x span) to
                          reach by scaling the arrival gaps; 0: the
                          model's own arrival rate (0) */
  int interactive;     /* also the model's interactive jobs (1) */
  double max_runtime;  /* longer run times are drawn again (e^12 s, 45 h) */
  double serial;       /* Amdahl serial fraction of every job's model (0.05) */
  int estimates;       /* also draw requested times (walltime) with
                          Tsafrir's model, max_runtime as the largest (1) */
} morph_lublin_options;

void morph_lublin_options_init(morph_lublin_options *opt);

/* Sets nodes and max_runtime for a machine like a Parallel Workloads
 * Archive log: "ctc" (CTC-SP2's 430-node batch partition, 18 h limit),
 * "kth" (KTH-SP2's 100 nodes, 60 h), "lublin" (the model's own 128 nodes).
 * Errors: MORPH_EINVAL for another name (opt unchanged). */
int morph_lublin_options_shape(morph_lublin_options *opt, const char *shape);

/* Generates rigid (FIXED) jobs from the Lublin-Feitelson model (JPDC 2003;
 * docs/workload.md): sizes, run times correlated with size, arrivals with
 * a daily cycle; each job's model is Amdahl with its run time at its size,
 * as the SWF importer makes them; with opt->estimates, requested times
 * from morph_workload_estimates_tsafrir (seed opt->seed). Deterministic for a seed on every
 * platform. Replaces the current jobs; wl->nodes = opt->nodes.
 * Errors: MORPH_EINVAL (options), MORPH_ENOMEM. */
int morph_workload_generate_lublin(morph_workload *wl, const morph_lublin_options *opt);

/* Offered load of a workload on `nodes` units: the work of every job at
 * its largest request over nodes x (last submit - first submit). Never
 * fails: 0 when nodes < 1 or every job is submitted at once. */
double morph_workload_offered_load(const morph_workload *wl, int nodes);

/* What to do with jobs that can never run on a cluster of n units. */
typedef enum morph_impossible {
  MORPH_IMPOSSIBLE_SKIP = 0, /* keep them listed, let the runner skip them */
  MORPH_IMPOSSIBLE_REJECT    /* fail the check */
} morph_impossible;

/* Nonzero if the job can start on a cluster of n units (req_min <= n).
 * Never fails. */
int morph_wjob_fits(const morph_wjob *job, int n);

/* Counts the jobs that cannot fit n units in *nbad (if not NULL) and puts
 * the first in the message. Errors: MORPH_ESIZE when there is one and
 * policy is REJECT (the workload is unchanged either way). */
int morph_workload_check(morph_workload *wl, int n, morph_impossible policy, size_t *nbad);

/* The application catalog: paper 000's four applications (Table 4
 * configurations, Table 5 limits, Table 6 requests, the time curves of
 * docs/sim.md), the examples heat and farm, and "generic". */
typedef struct morph_app_info {
  const char *name;
  int min, max, pref;     /* Table 5 */
  int rigid;              /* Table 6 rigid request */
  morph_model model;
  const char *config;     /* Table 4 configuration, for documentation */
} morph_app_info;

/* Fills *info for a catalog application. Errors: MORPH_ENOENT. */
int morph_app_lookup(const char *name, morph_app_info *info);

/* Name of the i-th catalog application; NULL for i past the end. */
const char *morph_app_name(size_t i);

/* Gain difference (paper 000, section 5.3): s(i) = (t[i-1] - t[i]) / t[0]
 * * 100 for the sizes size[0] < size[1] < ... (doubling in the paper) with
 * measured times t. From it, with a threshold in percent (10 in the paper):
 *  min  = first size whose s exceeds the threshold (size[0] if none),
 *  pref = last size before s drops below the threshold (min if none),
 *  max  = last size before s drops below zero.
 * Writes s[1..len-1] to gain when not NULL (gain[0] = 0).
 * Errors: MORPH_EINVAL (len < 1, sizes not increasing, times <= 0). */
int morph_gain_limits(const int *size, const double *t, int len, double threshold, int *min,
                      int *max, int *pref, double *gain);

#ifdef __cplusplus
}
#endif
#endif /* MORPH_WORKLOAD_H */
