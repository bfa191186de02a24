/*
 * Unix and TCP stream connections (transport.h). TCP connections are
 * authenticated by auth.c before the caller sees them.
 */
#include "proto/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "proto/auth.h"

/* How long a TCP peer has to authenticate. */
#define AUTH_TIMEOUT 2.0
/* A TCP handshake takes a round trip: a connect gets at least this long,
 * even from a caller whose deadline is now (morph run's reattach tries
 * with timeout 0 every 2 s; with no time at all every attempt failed and
 * morph run never reattached to a restarted morphd over TCP). A refused
 * connection still fails at once. */
#define CONNECT_MIN 0.5

int morph__addr_is_tcp(const char *addr)
{
  /* A path may contain ':' but a host:port never contains '/'. */
  return addr && !strchr(addr, '/') && strrchr(addr, ':') != NULL;
}

/* Splits "host:port" into its parts; "*" and "" mean every address. */
static int split_hostport(const char *addr, char *host, size_t hsize, char *port, size_t psize)
{
  const char *colon = strrchr(addr, ':');
  size_t hl = (size_t)(colon - addr);
  if (hl >= hsize || strlen(colon + 1) >= psize || !colon[1] ||
      strspn(colon + 1, "0123456789") != strlen(colon + 1))
    return MORPH_EINVAL;
  memcpy(host, addr, hl);
  host[hl] = '\0';
  snprintf(port, psize, "%s", colon + 1);
  return MORPH_OK;
}

void morph__conn_init(morph__conn *c, int fd, int tcp)
{
  c->fd = fd;
  c->tcp = tcp;
  c->len = 0;
  c->uid = (uid_t)-1, c->gid = (gid_t)-1;
  memset(&c->seal, 0, sizeof c->seal);
  snprintf(c->peer, sizeof c->peer, "unix");
}

int morph__conn_peercred(morph__conn *c)
{
  struct ucred cr;
  socklen_t len = sizeof cr;
  if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
    return MORPH_EIO;
  c->uid = cr.uid, c->gid = cr.gid;
  return MORPH_OK;
}

static int fill_unix(const char *path, struct sockaddr_un *a)
{
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (!path || strlen(path) >= sizeof a->sun_path)
    return MORPH_EINVAL;
  strcpy(a->sun_path, path);
  return MORPH_OK;
}

static int listen_unix(const char *path)
{
  struct sockaddr_un a;
  if (fill_unix(path, &a) != MORPH_OK)
    return MORPH_EINVAL;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return MORPH_EIO;
  unlink(path);
  /* The umask makes the socket owner-only from the moment it exists; a
   * chmod afterwards would leave a window where others could connect. */
  mode_t old = umask(0177);
  int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
  umask(old);
  if (rc != 0 || listen(fd, SOMAXCONN) != 0) {
    close(fd);
    return MORPH_EIO;
  }
  return fd;
}

/* getaddrinfo for TCP; passive (listen) or not. */
static int resolve(const char *addr, int passive, struct addrinfo **res)
{
  char host[256], port[16];
  if (split_hostport(addr, host, sizeof host, port, sizeof port) != MORPH_OK)
    return MORPH_EINVAL;
  int any = !*host || !strcmp(host, "*");
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)};
  return getaddrinfo(any ? NULL : host, port, &hints, res) == 0 ? MORPH_OK : MORPH_EINVAL;
}

static int listen_tcp(const char *addr)
{
  struct addrinfo *ai;
  if (resolve(addr, 1, &ai) != MORPH_OK)
    return MORPH_EINVAL;
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  if (fd >= 0)
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd >= 0 && (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0)) {
    close(fd);
    fd = -1;
  }
  freeaddrinfo(ai);
  return fd >= 0 ? fd : MORPH_EIO;
}

int morph__listen(const char *addr)
{
  if (!addr)
    return MORPH_EINVAL;
  return morph__addr_is_tcp(addr) ? listen_tcp(addr) : listen_unix(addr);
}

int morph__listen_name(int fd, char *buf, size_t size)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
    return MORPH_EIO;
  int n;
  if (ss.ss_family == AF_UNIX) {
    n = snprintf(buf, size, "%s", ((struct sockaddr_un *)&ss)->sun_path);
  } else if (ss.ss_family == AF_INET) {
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    char host[256];
    if (in->sin_addr.s_addr == htonl(INADDR_ANY))
      gethostname(host, sizeof host);
    else
      inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    host[sizeof host - 1] = '\0';
    n = snprintf(buf, size, "%s:%u", host, (unsigned)ntohs(in->sin_port));
  } else {
    return MORPH_EIO;
  }
  return n > 0 && (size_t)n < size ? MORPH_OK : MORPH_EINVAL;
}

void morph__conn_name_peer(morph__conn *c, const struct sockaddr_storage *ss)
{
  const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
  char host[INET_ADDRSTRLEN] = "?";
  if (ss->ss_family == AF_INET)
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
  snprintf(c->peer, sizeof c->peer, "%s:%u", host, (unsigned)ntohs(in->sin_port));
}

/* The client's first line within the deadline, then the handshake. */
static int auth_blocking(morph__conn *c, double deadline)
{
  char line[2048];
  for (;;) {
    int n = morph__conn_line(c, line, sizeof line);
    if (n >= 0)
      return morph__auth_server_line(c, line, 0);
    double left = deadline - morph__now();
    int rc = left > 0 ? morph__conn_fill(c, left) : 0;
    if (rc < 0 || left <= 0) {
      snprintf(c->why, sizeof c->why, "%s: %s", c->peer,
               left <= 0 ? "did not authenticate in time" : "closed before authenticating");
      return MORPH_EAUTH;
    }
  }
}

int morph__accept(int listen_fd, morph__conn *c)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int fd;
  do
    fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  c->why[0] = '\0';
  if (fd < 0) {
    c->fd = -1;
    snprintf(c->why, sizeof c->why, "accept: %s", strerror(errno));
    return MORPH_EIO;
  }
  morph__conn_init(c, fd, ss.ss_family != AF_UNIX);
  if (!c->tcp)
    return morph__conn_peercred(c) == MORPH_OK ? MORPH_OK : (morph__conn_close(c), MORPH_EIO);
  morph__conn_name_peer(c, &ss);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (auth_blocking(c, morph__now() + AUTH_TIMEOUT) == MORPH_OK)
    return MORPH_OK;
  morph__conn_close(c);
  return MORPH_EAUTH;
}

/* One attempt at a Unix socket. MORPH_ECONN: not there (yet). */
static int try_unix(const char *path, morph__conn *c)
{
  struct sockaddr_un a;
  if (fill_unix(path, &a) != MORPH_OK)
    return MORPH_EINVAL;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
    morph__conn_init(c, fd, 0);
    if (morph__conn_peercred(c) == MORPH_OK && morph__auth_trusted_server(c->uid))
      return MORPH_OK;
    snprintf(c->why, sizeof c->why, "%s is served by uid %ld, not by root, morph or you: "
             "refusing to talk to it", path, (long)c->uid);
    morph__conn_close(c);
    return MORPH_EAUTH;
  }
  c->err = errno;
  snprintf(c->why, sizeof c->why, "%s: %s", path, strerror(errno));
  if (fd >= 0)
    close(fd);
  return MORPH_ECONN;
}

/* connect() that gives up at the deadline. */
static int connect_until(int fd, const struct addrinfo *ai, double deadline)
{
  int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    double left = deadline - morph__now();
    int err = 0;
    socklen_t len = sizeof err;
    if (left > 0 && poll(&p, 1, (int)(left * 1000) + 1) == 1 &&
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
      rc = 0;
    else
      errno = err ? err : ETIMEDOUT;
  }
  fcntl(fd, F_SETFL, fl);
  return rc;
}

/* One attempt at a TCP server, authentication included. */
static int try_tcp(const char *addr, double deadline, morph__conn *c)
{
  struct addrinfo *ai;
  if (resolve(addr, 0, &ai) != MORPH_OK) {
    snprintf(c->why, sizeof c->why, "%s: unknown host or malformed address", addr);
    return MORPH_EINVAL;
  }
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  double connect_deadline = morph__now() + CONNECT_MIN;
  if (deadline > connect_deadline)
    connect_deadline = deadline;
  int rc = fd >= 0 && connect_until(fd, ai, connect_deadline) == 0 ? MORPH_OK : MORPH_ECONN;
  freeaddrinfo(ai);
  if (rc != MORPH_OK) {
    snprintf(c->why, sizeof c->why, "%s: %s", addr, strerror(errno));
    if (fd >= 0)
      close(fd);
    return rc;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  morph__conn_init(c, fd, 1);
  snprintf(c->peer, sizeof c->peer, "%.63s", addr);
  /* Authentication gets its own short limit even at the end of a long
   * wait for the server. */
  double auth_deadline = morph__now() + AUTH_TIMEOUT;
  rc = morph__auth_client(c, deadline > auth_deadline ? deadline : auth_deadline);
  if (rc != MORPH_OK) {
    morph__conn_close(c);
    return rc == MORPH_ECONN || rc == MORPH_ETIMEDOUT ? MORPH_EAUTH : rc;
  }
  return MORPH_OK;
}

/* Tries each address once. MORPH_ECONN: none answered (try again). */
static int try_all(const char *addrs, double deadline, morph__conn *c)
{
  char list[1024], *save = NULL;
  if (strlen(addrs) >= sizeof list)
    return MORPH_EINVAL;
  strcpy(list, addrs);
  int rc = MORPH_EINVAL;
  for (char *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
    rc = morph__addr_is_tcp(a) ? try_tcp(a, deadline, c) : try_unix(a, c);
    /* A refused credential is final: retrying will not change it. */
    if (rc == MORPH_OK || rc == MORPH_EAUTH)
      return rc;
  }
  return rc == MORPH_EINVAL ? MORPH_EINVAL : MORPH_ECONN;
}

int morph__connect(const char *addrs, double timeout, morph__conn *c)
{
  c->fd = -1;
  c->why[0] = '\0';
  c->err = 0;
  if (!addrs || !*addrs)
    return MORPH_EINVAL;
  double deadline = morph__now() + timeout;
  for (;;) {
    int rc = try_all(addrs, deadline, c);
    /* The server may still be creating its socket: retry until the
     * deadline. */
    if (rc != MORPH_ECONN || morph__now() >= deadline)
      return rc;
    morph__sleep(0.02);
  }
}
