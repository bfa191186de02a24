/* morphd-query DB SQL: prints each row, columns separated by '|'. */
#include <sqlite3.h>
#include <stdio.h>

static int row(void *ctx, int n, char **v, char **names)
{
  (void)ctx, (void)names;
  for (int i = 0; i < n; i++)
    printf("%s%s", i ? "|" : "", v[i] ? v[i] : "");
  putchar('\n');
  return 0;
}

int main(int argc, char **argv)
{
  sqlite3 *db;
  if (argc != 3 || sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    fprintf(stderr, "usage: morphd-query DB SQL\n");
    return 2;
  }
  sqlite3_busy_timeout(db, 5000);
  char *err = NULL;
  int rc = sqlite3_exec(db, argv[2], row, NULL, &err);
  if (rc != SQLITE_OK)
    fprintf(stderr, "morphd-query: %s\n", err ? err : "error");
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : 1;
}
