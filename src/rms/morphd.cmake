# morphd (issue 3): the embedded resource manager as a library, so that the
# daemon program, the commands and the tests share it.
#   morph_rms_core    pool, allocations, job records, SQLite journal
#   morph_rms         the daemon (loop, relay, commands, policy adapter)
#   morph_rms_client  what the `morph` commands need: reach morphd, read
#                     the journal into a report
add_library(morph_rms_core STATIC pool.c alloc.c job.c journal.c journal_jobs.c)
target_include_directories(morph_rms_core PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(morph_rms_core PUBLIC morph_common morph_workload PkgConfig::SQLITE PkgConfig::JANSSON)

add_library(morph_rms STATIC setup.c daemon.c conn.c relay_srv.c cli_srv.c status_srv.c
  lifecycle.c launch.c sched.c resize.c)
target_link_libraries(morph_rms PUBLIC morph_rms_core morph_proto morph_policy)

add_library(morph_rms_client STATIC client.c history.c)
target_link_libraries(morph_rms_client PUBLIC morph_rms_core morph_proto morph_report)
