/* What links and routes cost: paper 004's Eq. 1 and route sums. */
#include <stdlib.h>

#include "place/topology_internal.h"

double morph_link_cost_eq1(const morph_topo *t, const morph_faults *f, morph_link l,
                           const void *arg)
{
  double c = arg ? *(const double *)arg : t ? t->base_cost : 1;
  /* Vertices beyond the nodes are switches, which never fail. */
  int faulty = morph_faults_get(f, l.from) > 0 || morph_faults_get(f, l.to) > 0;
  return faulty ? c + 100 * c : c;
}

double morph_route_cost(const morph_topo *t, const morph_faults *f, const morph_cost_model *m,
                        int u, int v)
{
  morph_link small[64], *links = small;
  int max = morph_topo_max_hops(t);
  if (max > 64 && !(links = malloc(sizeof *links * (size_t)max)))
    return MORPH_ENOMEM;
  int hops = morph_topo_route(t, u, v, links, max);
  morph_link_cost_fn fn = m && m->fn ? m->fn : morph_link_cost_eq1;
  const void *arg = m ? m->arg : NULL;
  double sum = hops < 0 ? hops : 0;
  for (int i = 0; i < hops; i++)
    sum += fn(t, f, links[i], arg);
  if (links != small)
    free(links);
  return sum;
}
