/*
 * morph_spank.so: a SPANK plugin that gives sbatch, salloc and srun the
 * option --morph=min:max:pref, the malleability limits of a job that runs
 * `morph run` (docs/slurm.md). Slurm forwards the option to the job's
 * steps; there the plugin puts MORPH_MIN, MORPH_MAX and MORPH_PREF in the
 * tasks' environment (the batch script is the batch step's task), which
 * morph run reads when its command line gives no limits.
 *
 * Enabled by a line in plugstack.conf: `optional /path/to/morph_spank.so`.
 * Slurm's conventions, not morph's, hold here: callbacks return 0 or -1
 * (ESPANK_* from spank_* calls) and report with slurm_error.
 */
#include <slurm/spank.h>
#include <stdio.h>

SPANK_PLUGIN(morph, 1);

/* Set by the option's callback, in each process that parses it. */
static int lim_min, lim_max, lim_pref;

static int parse_limits(int val, const char *arg, int remote)
{
  char extra;
  (void)val, (void)remote;
  if (!arg || sscanf(arg, "%d:%d:%d%c", &lim_min, &lim_max, &lim_pref, &extra) != 3 ||
      lim_min < 1 || lim_min > lim_pref || lim_pref > lim_max) {
    slurm_error("morph: --morph=%s: expected min:max:pref (processes, 1 <= min <= pref <= max)",
                arg ? arg : "");
    lim_min = 0;
    return -1;
  }
  return 0;
}

static struct spank_option morph_option = {
  "morph", "min:max:pref",
  "malleability limits of a morph job (processes; morph run reads them)", 1, 0, parse_limits,
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
  (void)ac, (void)av;
  spank_context_t ctx = spank_context();
  if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE)
    return 0;
  return spank_option_register(sp, &morph_option) == ESPANK_SUCCESS ? 0 : -1;
}

static int set(spank_t sp, const char *name, int v)
{
  char buf[16];
  snprintf(buf, sizeof buf, "%d", v);
  return spank_setenv(sp, name, buf, 1) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
  (void)ac, (void)av;
  if (!spank_remote(sp) || lim_min < 1)
    return 0;
  if (set(sp, "MORPH_MIN", lim_min) || set(sp, "MORPH_MAX", lim_max) ||
      set(sp, "MORPH_PREF", lim_pref)) {
    slurm_error("morph: cannot set MORPH_MIN/MAX/PREF in the job's environment");
    return -1;
  }
  return 0;
}
