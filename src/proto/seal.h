/*
 * Sealed lines: every line of a TCP connection after its MUNGE handshake
 * carries a message authentication code (docs/protocol.md, "Every line
 * authenticated"). The handshake gives both sides a 256-bit session key
 * that only they know (it travels inside a MUNGE credential that only the
 * client's user can decode); each line then goes as
 *
 *   <seq> <mac> <payload>\n
 *
 * where seq counts the lines of one direction from 0 (16 hex digits) and
 * mac is HMAC-SHA256(key, direction || seq || payload) in 64 hex digits;
 * the direction byte is 'c' from client to server, 's' back. A receiver
 * accepts only the next sequence number of its direction with a matching
 * MAC, so a line injected, changed, replayed, reordered, dropped or
 * reflected back by someone on the path is refused, and the connection is
 * then closed. The payload is not encrypted.
 *
 * No I/O here: the transport (conn.c) seals what it sends and opens what it
 * receives; morphd's own connection code does the same.
 */
#ifndef MORPH_PROTO_SEAL_H
#define MORPH_PROTO_SEAL_H

#include <stddef.h>
#include <stdint.h>

#define MORPH__SEAL_KEY 32
/* What sealing adds to a line: "<16 hex> <64 hex> ". */
#define MORPH__SEAL_OVERHEAD (16 + 1 + 64 + 1)

typedef struct morph__seal {
  int on;       /* 0: lines go as they are (Unix sockets, the handshake) */
  int server;   /* which side we are: sets the direction bytes */
  void *mac;    /* libcrypto's HMAC context, keyed once: making one per
                   line cost ten times the MAC itself */
  uint64_t sent; /* sequence number of our next line */
  uint64_t got;  /* sequence number expected from the peer */
} morph__seal;

/* Turns sealing on with `key` for the client (server 0) or server side.
 * The seal then owns a context: whoever owns the connection calls
 * morph__seal_end when it closes it (a copy of the struct shares it).
 * Errors: MORPH_ENOMEM (sealing stays off). */
int morph__seal_start(morph__seal *s, const unsigned char key[MORPH__SEAL_KEY], int server);

/* Frees the seal's context and turns sealing off (idempotent; a zeroed
 * seal is fine). */
void morph__seal_end(morph__seal *s);

/* Writes the sealed form of payload (n bytes, no '\n') with its '\n' into
 * out and counts the line as sent. Returns the length written, or
 * MORPH_ENOMEM if it does not fit in size bytes (nothing is counted then).
 * With sealing off, copies the payload and '\n'. */
int morph__seal_line(morph__seal *s, const char *payload, size_t n, char *out, size_t size);

/* Checks a received line (n bytes, without its '\n') and, if it is the
 * next one from the peer, sets *payload to where its payload starts in
 * `line` and returns the payload's length. Errors: MORPH_EAUTH (malformed,
 * wrong sequence number or wrong MAC: the connection must be closed, the
 * counter is not advanced). With sealing off, returns the line as is. */
int morph__seal_open(morph__seal *s, const char *line, size_t n, const char **payload);

/* Fills key with random bytes. Errors: MORPH_EIO. */
int morph__seal_new_key(unsigned char key[MORPH__SEAL_KEY]);

#endif /* MORPH_PROTO_SEAL_H */
