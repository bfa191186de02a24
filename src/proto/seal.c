/*
 * Sealed lines (seal.h): HMAC-SHA256 from OpenSSL's libcrypto, compared in
 * constant time.
 */
#include "proto/seal.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "morph/error.h"

#define SEQ_HEX 16
#define MAC_LEN 32

int morph__seal_start(morph__seal *s, const unsigned char key[MORPH__SEAL_KEY], int server)
{
  morph__seal_end(s);
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
  EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
  EVP_MAC_free(mac); /* the context keeps its own reference */
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0),
                         OSSL_PARAM_construct_end()};
  if (!ctx || !EVP_MAC_init(ctx, key, MORPH__SEAL_KEY, params)) {
    EVP_MAC_CTX_free(ctx);
    return MORPH_ENOMEM;
  }
  s->mac = ctx;
  s->server = server;
  s->sent = s->got = 0;
  s->on = 1;
  return MORPH_OK;
}

void morph__seal_end(morph__seal *s)
{
  EVP_MAC_CTX_free(s->mac);
  s->mac = NULL;
  s->on = 0;
}

int morph__seal_new_key(unsigned char key[MORPH__SEAL_KEY])
{
  return getrandom(key, MORPH__SEAL_KEY, 0) == MORPH__SEAL_KEY ? MORPH_OK : MORPH_EIO;
}

/* HMAC-SHA256(key, dir || seq as 8 bytes big-endian || payload); the
 * context is reset to its key for each line. */
static int mac_of(const morph__seal *s, char dir, uint64_t seq, const char *payload, size_t n,
                  unsigned char out[MAC_LEN])
{
  unsigned char head[9];
  head[0] = (unsigned char)dir;
  for (int i = 0; i < 8; i++)
    head[1 + i] = (unsigned char)(seq >> (56 - 8 * i));
  size_t len = 0;
  int ok = s->mac && EVP_MAC_init(s->mac, NULL, 0, NULL) &&
           EVP_MAC_update(s->mac, head, sizeof head) &&
           EVP_MAC_update(s->mac, (const unsigned char *)payload, n) &&
           EVP_MAC_final(s->mac, out, &len, MAC_LEN) && len == MAC_LEN;
  return ok ? MORPH_OK : MORPH_ENOMEM;
}

static void to_hex(const unsigned char *v, size_t n, char *out)
{
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[v[i] >> 4];
    out[2 * i + 1] = digits[v[i] & 15];
  }
}

/* Our direction byte when sending; the peer's is the other. */
static char dir_out(const morph__seal *s)
{
  return s->server ? 's' : 'c';
}

int morph__seal_line(morph__seal *s, const char *payload, size_t n, char *out, size_t size)
{
  size_t head = s->on ? MORPH__SEAL_OVERHEAD : 0;
  if (n + head + 2 > size)
    return MORPH_ENOMEM;
  if (s->on) {
    unsigned char mac[MAC_LEN];
    if (mac_of(s, dir_out(s), s->sent, payload, n, mac) != MORPH_OK)
      return MORPH_ENOMEM;
    snprintf(out, size, "%016llx ", (unsigned long long)s->sent);
    to_hex(mac, MAC_LEN, out + SEQ_HEX + 1);
    out[SEQ_HEX + 1 + 2 * MAC_LEN] = ' ';
    s->sent++;
  }
  memcpy(out + head, payload, n);
  out[head + n] = '\n';
  out[head + n + 1] = '\0';
  return (int)(head + n + 1);
}

/* The value of a lowercase hex digit, -1 for anything else. */
static int hexval(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Parses "<16 hex> <64 hex> " at the start of line into seq and mac. */
static int parse_head(const char *line, size_t n, uint64_t *seq, unsigned char mac[MAC_LEN])
{
  if (n < MORPH__SEAL_OVERHEAD || line[SEQ_HEX] != ' ' || line[MORPH__SEAL_OVERHEAD - 1] != ' ')
    return MORPH_EAUTH;
  uint64_t v = 0;
  for (int i = 0; i < SEQ_HEX; i++) {
    int d = hexval(line[i]);
    if (d < 0)
      return MORPH_EAUTH;
    v = v << 4 | (uint64_t)d;
  }
  const char *h = line + SEQ_HEX + 1;
  for (int i = 0; i < MAC_LEN; i++) {
    int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return MORPH_EAUTH;
    mac[i] = (unsigned char)(hi << 4 | lo);
  }
  *seq = v;
  return MORPH_OK;
}

int morph__seal_open(morph__seal *s, const char *line, size_t n, const char **payload)
{
  if (!s->on) {
    *payload = line;
    return (int)n;
  }
  uint64_t seq;
  unsigned char got[MAC_LEN], want[MAC_LEN];
  if (parse_head(line, n, &seq, got) != MORPH_OK || seq != s->got)
    return MORPH_EAUTH;
  const char *p = line + MORPH__SEAL_OVERHEAD;
  size_t len = n - MORPH__SEAL_OVERHEAD;
  char dir = s->server ? 'c' : 's';
  if (mac_of(s, dir, seq, p, len, want) != MORPH_OK || CRYPTO_memcmp(got, want, MAC_LEN) != 0)
    return MORPH_EAUTH;
  s->got++;
  *payload = p;
  return (int)len;
}
