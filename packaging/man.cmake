# Man pages of the tools, generated from their --help by help2man (Debian
# package help2man, installed by scripts/setup.sh): the page is the text
# `morph <command> --help` prints, no copy of its own. Without help2man the
# build says so and installs no man pages; everything else is unchanged.
find_program(MORPH_HELP2MAN help2man)

# The NAME line of each page: the dispatcher's own, and for each command the
# one-line description `morph --help` prints, read from its table in
# tools/morph.c (one copy of each description).
set(morph_man_desc_morph "malleable MPI jobs: one command line for run, submit, status, sim, report, prof")
file(STRINGS ${CMAKE_SOURCE_DIR}/tools/morph.c morph_command_lines REGEX "^  {\"[a-z]+\", \".*\"},$")
set(MORPH_COMMANDS "")
foreach(line ${morph_command_lines})
  string(REGEX REPLACE "^  {\"([a-z]+)\", \"(.*)\"},$" "\\1" cmd "${line}")
  string(REGEX REPLACE "^  {\"([a-z]+)\", \"(.*)\"},$" "\\2" desc "${line}")
  list(APPEND MORPH_COMMANDS ${cmd})
  set(morph_man_desc_morph-${cmd} "${desc}")
endforeach()

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
