/* A tolerant JSON scanner for line numbers only: the real parsing (and the
 * syntax errors) are jansson's; this runs on text jansson accepted. */
#include "jsonpos.h"

#include <stdlib.h>
#include <string.h>

typedef struct scanner {
  const char *t;
  size_t len, pos;
  int line;
} scanner;

/* Skips a string starting at the opening quote; returns its body's length
 * and start through *body. */
static size_t skip_string(scanner *s, size_t *body)
{
  *body = ++s->pos;
  while (s->pos < s->len && s->t[s->pos] != '"') {
    if (s->t[s->pos] == '\\')
      s->pos++;
    else if (s->t[s->pos] == '\n')
      s->line++;
    s->pos++;
  }
  size_t n = s->pos - *body;
  s->pos++;
  return n;
}

/* True when the next non-blank character is ':' (the string was a key). */
static int followed_by_colon(const scanner *s)
{
  size_t p = s->pos;
  while (p < s->len && strchr(" \t\r\n", s->t[p]))
    p++;
  return p < s->len && s->t[p] == ':';
}

static int push_span(morph__span **v, long *n, long *cap, size_t begin, int line)
{
  if (*n == *cap) {
    long c = *cap ? *cap * 2 : 64;
    morph__span *nv = realloc(*v, (size_t)c * sizeof *nv);
    if (!nv)
      return -1;
    *v = nv;
    *cap = c;
  }
  (*v)[*n].begin = begin;
  (*v)[*n].line = line;
  (*v)[*n].end = begin;
  (*n)++;
  return 0;
}

long morph__json_job_spans(const char *text, size_t len, morph__span **spans)
{
  scanner s = {text, len, 0, 1};
  int depth = 0, in_jobs = 0, last_key_jobs = 0;
  long n = 0, cap = 0;
  *spans = NULL;
  while (s.pos < s.len) {
    char c = text[s.pos];
    if (c == '"') {
      size_t body, blen = skip_string(&s, &body);
      if (depth == 1 && followed_by_colon(&s))
        last_key_jobs = blen == 4 && !memcmp(text + body, "jobs", 4);
      continue;
    }
    if (c == '\n')
      s.line++;
    if (c == '[' && depth == 1 && last_key_jobs)
      in_jobs = 1;
    if (c == '{' && depth == 2 && in_jobs && push_span(spans, &n, &cap, s.pos, s.line) < 0)
      return free(*spans), *spans = NULL, -1;
    if (c == '{' || c == '[')
      depth++;
    if (c == '}' || c == ']') {
      depth--;
      if (depth == 2 && in_jobs && c == '}' && n > 0)
        (*spans)[n - 1].end = s.pos + 1;
      if (depth == 1)
        in_jobs = 0;
    }
    s.pos++;
  }
  return n;
}

int morph__json_key_line(const char *text, const morph__span *span, const char *key)
{
  scanner s = {text, span->end, span->begin, span->line};
  size_t klen = strlen(key);
  int depth = 0;
  while (s.pos < s.len) {
    char c = text[s.pos];
    if (c == '"') {
      int line = s.line;
      size_t body, blen = skip_string(&s, &body);
      if (depth == 1 && blen == klen && !memcmp(text + body, key, klen) && followed_by_colon(&s))
        return line;
      continue;
    }
    if (c == '\n')
      s.line++;
    if (c == '{' || c == '[')
      depth++;
    if (c == '}' || c == ']')
      depth--;
    s.pos++;
  }
  return span->line;
}
