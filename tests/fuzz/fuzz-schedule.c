/* morph run's schedules: --schedule LIST and --schedule-file FILE, each
 * entry checked against limits, its host clauses against sizes and hosts,
 * formatted back and turned into the protocol's host lists. */
#include <stdlib.h>

#include "fuzz_input.h"
#include "launch/schedule.h"

static void use(struct morph__launch_sched *s)
{
  char buf[128], err[512], hosts[512], from[512];
  const char *job[] = {"node1", "node2"};
  morph__launch_sched_check(s, 1, 64, err, sizeof err);
  morph__launch_sched_check_clauses(s, 2, err, sizeof err);
  morph__launch_sched_check_known(s, job, 2, "fuzz", err, sizeof err);
  for (int i = 0; i < s->n; i++) {
    morph__launch_sched_format(&s->e[i], buf, sizeof buf);
    morph__launch_sched_wire(&s->e[i], 3, hosts, from, sizeof hosts);
  }
  morph__launch_sched_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[64], err[512];
  struct morph__launch_sched s = {0};
  char *text = morph__fuzz_text(data, size);
  if (text) {
    morph__launch_sched_parse_list(&s, text, err, sizeof err);
    use(&s);
    free(text);
  }
  if (morph__fuzz_file(data, size, path, sizeof path) == 0) {
    morph__launch_sched_parse_file(&s, path, err, sizeof err);
    use(&s);
  }
  return 0;
}
