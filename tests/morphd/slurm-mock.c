/* The libslurm stand-in of slurm-mock.h. */
#include "slurm-mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mock_slurm mock;
static int mock_errno;
static char *names[MOCK_NODES] = {"node1", "node2", "node3", "node4"};

void mock_touch(void)
{
  mock.jobs_update = mock.nodes_update = time(NULL);
}

void mock_reset(void)
{
  memset(&mock, 0, sizeof mock);
  mock.nodes = mock.small_nodes, mock.nnodes = MOCK_NODES;
  mock.jobs = mock.small_jobs;
  for (int i = 0; i < MOCK_NODES; i++) {
    mock.nodes[i].name = names[i];
    mock.nodes[i].node_state = NODE_STATE_IDLE;
    mock.nodes[i].cpus = 2;
  }
  mock.next_alloc = 100;
  mock_touch();
}

slurm_job_info_t *mock_job(uint32_t id, uint32_t state, int first, int last)
{
  int k = mock.njobs++;
  slurm_job_info_t *j = &mock.jobs[k];
  memset(j, 0, sizeof *j);
  j->job_id = id;
  j->job_state = state;
  j->num_nodes = first >= 0 ? (uint32_t)(last - first + 1) : 1;
  j->time_limit = INFINITE;
  j->submit_time = j->start_time = time(NULL);
  j->name = "job";
  j->partition = "main";
  j->array_task_id = NO_VAL;
  if (first >= 0) {
    mock.node_inx[k][0] = first, mock.node_inx[k][1] = last, mock.node_inx[k][2] = -1;
    j->node_inx = mock.node_inx[k];
    j->batch_host = names[first];
    for (int n = first; n <= last; n++)
      mock.nodes[n].node_state = NODE_STATE_ALLOCATED;
  }
  mock_touch();
  return j;
}

void slurm_init(const char *conf)
{
  (void)conf;
}

void slurm_fini(void) {}

int slurm_get_errno(void)
{
  return mock_errno;
}

char *slurm_strerror(int errnum)
{
  (void)errnum;
  return "mock error";
}

char *slurm_job_state_string(uint32_t inx)
{
  return (inx & JOB_STATE_BASE) == JOB_PENDING ? "PENDING" : "OTHER";
}

char *slurm_job_reason_string(enum job_state_reason inx)
{
  return inx == WAIT_RESOURCES ? "Resources" : "None";
}

char *slurm_node_state_string(uint32_t inx)
{
  return (inx & NODE_STATE_BASE) == NODE_STATE_IDLE ? "IDLE" : "OTHER";
}

int slurm_ping(int dest)
{
  (void)dest;
  return SLURM_SUCCESS;
}

/* slurmctld's rule: "no change" when the caller's copy is from a second
 * after the table's last change or later (proc_req.c, last_update - 1). */
static int unchanged(time_t copy, time_t changed)
{
  mock.rpcs++;
  if (copy > 0 && copy - 1 >= changed) {
    mock_errno = SLURM_NO_CHANGE_IN_DATA;
    mock.same++;
    return 1;
  }
  mock.packed++;
  return 0;
}

/* The table, lent or copied (n records of `size` bytes). */
static void *table(void *v, int n, size_t size)
{
  if (mock.lend)
    return v;
  void *c = calloc((size_t)n + 1, size);
  memcpy(c, v, (size_t)n * size);
  return c;
}

int slurm_load_jobs(time_t update_time, job_info_msg_t **resp, uint16_t show_flags)
{
  (void)show_flags;
  if (unchanged(update_time, mock.jobs_update))
    return SLURM_ERROR;
  job_info_msg_t *m = calloc(1, sizeof *m);
  m->record_count = (uint32_t)mock.njobs;
  m->job_array = table(mock.jobs, mock.njobs, sizeof *mock.jobs);
  m->last_update = time(NULL);
  *resp = m;
  return SLURM_SUCCESS;
}

/* One job: a table of its record alone (an empty one if unknown). */
int slurm_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t show_flags)
{
  (void)show_flags;
  mock.rpcs++;
  job_info_msg_t *m = calloc(1, sizeof *m);
  m->job_array = calloc(1, sizeof *m->job_array);
  for (int k = 0; k < mock.njobs && !m->record_count; k++)
    if (mock.jobs[k].job_id == job_id)
      m->job_array[0] = mock.jobs[k], m->record_count = 1;
  m->last_update = time(NULL);
  *resp = m;
  return SLURM_SUCCESS;
}

void slurm_free_job_info_msg(job_info_msg_t *m)
{
  if (m && m->job_array != mock.jobs) /* a copy, or one job's table */
    free(m->job_array);
  free(m);
}

int slurm_load_node(time_t update_time, node_info_msg_t **resp, uint16_t show_flags)
{
  (void)show_flags;
  if (unchanged(update_time, mock.nodes_update))
    return SLURM_ERROR;
  node_info_msg_t *m = calloc(1, sizeof *m);
  m->record_count = (uint32_t)mock.nnodes;
  m->node_array = table(mock.nodes, mock.nnodes, sizeof *mock.nodes);
  m->last_update = time(NULL);
  *resp = m;
  return SLURM_SUCCESS;
}

void slurm_free_node_info_msg(node_info_msg_t *m)
{
  if (m && m->node_array != mock.nodes)
    free(m->node_array);
  free(m);
}

void slurm_init_job_desc_msg(job_desc_msg_t *d)
{
  memset(d, 0, sizeof *d);
}

int slurm_allocate_resources(job_desc_msg_t *d, resource_allocation_response_msg_t **r)
{
  mock.rpcs++;
  snprintf(mock.alloc_nodes, sizeof mock.alloc_nodes, "%s", d->req_nodes ? d->req_nodes : "");
  *r = calloc(1, sizeof **r);
  (*r)->job_id = mock.next_alloc;
  if (mock.grant) {
    (*r)->node_list = strdup(mock.alloc_nodes);
    (*r)->node_cnt = d->min_nodes;
  }
  return SLURM_SUCCESS;
}

void slurm_free_resource_allocation_response_msg(resource_allocation_response_msg_t *r)
{
  if (r)
    free(r->node_list);
  free(r);
}

int slurm_update_job(job_desc_msg_t *d)
{
  (void)d;
  mock.rpcs++;
  mock.updates++;
  return SLURM_SUCCESS;
}

int slurm_kill_job(uint32_t job_id, uint16_t signal, uint16_t flags)
{
  (void)signal, (void)flags;
  mock.rpcs++;
  if (mock.nkilled < MOCK_JOBS)
    mock.killed[mock.nkilled++] = job_id;
  return SLURM_SUCCESS;
}

void slurm_error(const char *msg)
{
  (void)msg;
}
