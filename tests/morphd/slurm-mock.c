/* The libslurm stand-in of slurm-mock.h. */
#include "slurm-mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

mock_slurm mock;
static int mock_errno;
static char *names[MOCK_NODES] = {"node1", "node2", "node3", "node4"};

void mock_reset(void)
{
  memset(&mock, 0, sizeof mock);
  for (int i = 0; i < MOCK_NODES; i++) {
    mock.nodes[i].name = names[i];
    mock.nodes[i].node_state = NODE_STATE_IDLE;
    mock.nodes[i].cpus = 2;
  }
  mock.next_alloc = 100;
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
  if (first >= 0) {
    mock.node_inx[k][0] = first, mock.node_inx[k][1] = last, mock.node_inx[k][2] = -1;
    j->node_inx = mock.node_inx[k];
    j->batch_host = names[first];
    for (int n = first; n <= last; n++)
      mock.nodes[n].node_state = NODE_STATE_ALLOCATED;
  }
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

int slurm_load_jobs(time_t update_time, job_info_msg_t **resp, uint16_t show_flags)
{
  (void)update_time, (void)show_flags;
  job_info_msg_t *m = calloc(1, sizeof *m);
  m->record_count = (uint32_t)mock.njobs;
  m->job_array = calloc((size_t)mock.njobs + 1, sizeof *m->job_array);
  memcpy(m->job_array, mock.jobs, (size_t)mock.njobs * sizeof *m->job_array);
  m->last_update = time(NULL);
  *resp = m;
  return SLURM_SUCCESS;
}

int slurm_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t show_flags)
{
  (void)job_id;
  return slurm_load_jobs(0, resp, show_flags);
}

void slurm_free_job_info_msg(job_info_msg_t *m)
{
  if (m)
    free(m->job_array), free(m);
}

int slurm_load_node(time_t update_time, node_info_msg_t **resp, uint16_t show_flags)
{
  (void)update_time, (void)show_flags;
  node_info_msg_t *m = calloc(1, sizeof *m);
  m->record_count = MOCK_NODES;
  m->node_array = calloc(MOCK_NODES, sizeof *m->node_array);
  memcpy(m->node_array, mock.nodes, sizeof mock.nodes);
  m->last_update = time(NULL);
  *resp = m;
  return SLURM_SUCCESS;
}

void slurm_free_node_info_msg(node_info_msg_t *m)
{
  if (m)
    free(m->node_array), free(m);
}

int slurm_load_reservations(time_t update_time, reserve_info_msg_t **resp)
{
  (void)update_time;
  *resp = calloc(1, sizeof **resp);
  return SLURM_SUCCESS;
}

void slurm_free_reservation_info_msg(reserve_info_msg_t *m)
{
  free(m);
}

void slurm_init_job_desc_msg(job_desc_msg_t *d)
{
  memset(d, 0, sizeof *d);
}

int slurm_allocate_resources(job_desc_msg_t *d, resource_allocation_response_msg_t **r)
{
  snprintf(mock.alloc_nodes, sizeof mock.alloc_nodes, "%s", d->req_nodes ? d->req_nodes : "");
  *r = calloc(1, sizeof **r);
  (*r)->job_id = mock.next_alloc;
  return SLURM_SUCCESS;
}

void slurm_free_resource_allocation_response_msg(resource_allocation_response_msg_t *r)
{
  free(r);
}

int slurm_update_job(job_desc_msg_t *d)
{
  (void)d;
  return SLURM_SUCCESS;
}

int slurm_kill_job(uint32_t job_id, uint16_t signal, uint16_t flags)
{
  (void)signal, (void)flags;
  if (mock.nkilled < MOCK_JOBS)
    mock.killed[mock.nkilled++] = job_id;
  return SLURM_SUCCESS;
}

void slurm_error(const char *msg)
{
  (void)msg;
}
