# Man pages of the tools, generated from their --help by help2man (Debian
# package help2man, installed by scripts/setup.sh). Without help2man the
# build says so and installs no man pages; everything else is unchanged.
find_program(MORPH_HELP2MAN help2man)

set(morph_man_desc_morph "malleable MPI jobs: one command line for run, submit, status, sim, report")
set(morph_man_desc_morph-run "start an MPI application and carry out its reconfigurations")
set(morph_man_desc_morph-submit "submit a job to morphd")
set(morph_man_desc_morph-status "show morphd's jobs and slots")
set(morph_man_desc_morph-cancel "cancel a job of morphd")
set(morph_man_desc_morph-workload "run a JSON workload on morphd")
set(morph_man_desc_morph-report "per-job and total metrics of morphd's journal, with plots")
set(morph_man_desc_morph-daemon "morphd, the resource manager of malleable jobs")
set(morph_man_desc_morph-sim "simulate a workload with morph's policy engine")

function(morph_man_pages tools)
  if(NOT MORPH_HELP2MAN)
    message(STATUS "morph: help2man not found, no man pages (scripts/setup.sh installs it)")
    return()
  endif()
  set(pages "")
  foreach(t ${tools})
    set(page ${CMAKE_CURRENT_BINARY_DIR}/man/${t}.1)
    # Compressed, as Debian installs man pages (gzip -n: reproducible).
    add_custom_command(OUTPUT ${page}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
      COMMAND ${MORPH_HELP2MAN} --no-info --no-discard-stderr
              --version-string=${PROJECT_VERSION} --name=${morph_man_desc_${t}}
              --section=1 --source=morph --output=${page} $<TARGET_FILE:${t}>
      COMMAND gzip -9nf ${page}
      DEPENDS ${t} VERBATIM)
    set(page ${page}.gz)
    list(APPEND pages ${page})
  endforeach()
  add_custom_target(morph_man ALL DEPENDS ${pages})
  install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT doc)
endfunction()
