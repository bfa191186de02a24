#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
static void placeholder(void **state) { (void)state; }
int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(placeholder),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
